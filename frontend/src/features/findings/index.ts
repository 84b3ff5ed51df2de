// Public surface of the findings feature, composed into the run and compare pages by the app layer.
export { CompareFindings } from "./components/CompareFindings";
export { RunFindings } from "./components/RunFindings";
