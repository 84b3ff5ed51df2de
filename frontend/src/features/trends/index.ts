// Public surface of the trends feature, used by the router (lazily: it pulls in recharts).
export { TrendPage } from "./components/TrendPage";
