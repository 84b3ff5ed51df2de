// Public surface of the compare feature (a placeholder until comparisons land).
export { ComparePage } from "./components/ComparePage";
