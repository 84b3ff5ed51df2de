// Public surface of the tokens feature, used by the router.
export { TokensPage } from "./components/TokensPage";
