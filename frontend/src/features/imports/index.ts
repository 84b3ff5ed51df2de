// Public surface of the imports feature: the "Import results" page.
export { ImportPage } from "./components/ImportPage";
