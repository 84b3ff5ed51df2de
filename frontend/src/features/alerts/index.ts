// Public surface of the alerts feature, used by the router.
export { AlertsPage } from "./components/AlertsPage";
