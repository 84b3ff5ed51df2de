// Public surface of the hosts feature, used by the router.
export { HostsPage } from "./components/HostsPage";
