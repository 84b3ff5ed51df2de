// Public surface of the profiles feature, used by the router (and by the app layer to place the run's
// profile list on the run page).
import "./profiles.css";

export { ProfileComparePage } from "./components/ProfileComparePage";
export { ProfileViewerPage } from "./components/ProfileViewerPage";
export { RunProfiles } from "./components/RunProfiles";
export { RunProfilesPage } from "./components/RunProfilesPage";
