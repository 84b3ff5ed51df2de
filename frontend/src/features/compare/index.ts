// Public surface of the compare feature, used by the router: the live comparison, saved snapshots for
// members, and the public share view.
export { ComparePage } from "./components/ComparePage";
export { SavedComparisonPage } from "./components/SavedComparisonPage";
export { SharePage } from "./components/SharePage";
