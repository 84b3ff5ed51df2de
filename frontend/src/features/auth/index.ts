// Public surface of the auth feature, used by the app shell.
export { authKeys, type Me, mayHaveSession, meQueryOptions, useLogout } from "./api";
export { BrandMark, LoginPage } from "./components/LoginPage";
export { loginPath, RequireAuth } from "./components/RequireAuth";
export { SessionExpiredDialog } from "./components/SessionExpiredDialog";
export { setSessionExpired } from "./session-expired";
