// Public surface of the projects feature, used by the app shell and router.
export { type Project, projectQueryOptions } from "./api";
export { ProjectsPage } from "./components/ProjectsPage";
