// Public surface of the runs feature, used by the router.
export { RunPage } from "./components/RunPage";
export { RunRedirect } from "./components/RunRedirect";
