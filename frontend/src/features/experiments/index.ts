// Public surface of the experiments feature, used by the router.
export { ExperimentPage } from "./components/ExperimentPage";
export { ExperimentsPage } from "./components/ExperimentsPage";
