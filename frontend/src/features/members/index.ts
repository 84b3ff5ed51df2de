// Public surface of the members feature, used by the router and the project frame.
export { membersQueryOptions } from "./api";
export { MembersPage } from "./components/MembersPage";
