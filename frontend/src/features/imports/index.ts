// Public surface of the imports feature (a placeholder until the import feature lands).
export { ImportPage } from "./components/ImportPage";
