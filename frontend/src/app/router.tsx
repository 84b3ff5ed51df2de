// All routes. React Router in library (data) mode: no loaders; pages fetch with TanStack Query so
// that caching, polling and invalidation live in one place.
import { createBrowserRouter, Navigate } from "react-router";
import { LoginPage, RequireAuth } from "@/features/auth";
import { ComparePage, SavedComparisonPage, SharePage } from "@/features/compare";
import { ExperimentPage, ExperimentsPage } from "@/features/experiments";
import { HostsPage } from "@/features/hosts";
import { ImportPage } from "@/features/imports";
import { ProfileComparePage, ProfileViewerPage, RunProfilesPage } from "@/features/profiles";
import { ProjectsPage } from "@/features/projects";
import { RunPage, RunRedirect } from "@/features/runs";
import { TokensPage } from "@/features/tokens";
import { AppLayout } from "./AppLayout";
import { NotFound, RouteError } from "./NotFound";
import { ProjectLayout } from "./ProjectLayout";

export function createAppRouter() {
  return createBrowserRouter([
    { path: "/login", element: <LoginPage />, errorElement: <RouteError /> },
    // The public share view: outside the login gate and the app frame; the token is the credential.
    { path: "/s/:token", element: <SharePage />, errorElement: <RouteError /> },
    {
      element: <RequireAuth />,
      errorElement: <RouteError />,
      children: [
        {
          element: <AppLayout />,
          children: [
            { index: true, element: <Navigate to="/projects" replace /> },
            { path: "projects", element: <ProjectsPage /> },
            { path: "runs/:runId", element: <RunRedirect /> },
            { path: "c/:shortId", element: <SavedComparisonPage /> },
            {
              path: "p/:slug",
              element: <ProjectLayout />,
              children: [
                { index: true, element: <ExperimentsPage /> },
                { path: "experiments/:experimentId", element: <ExperimentPage /> },
                { path: "runs/:runId", element: <RunPage /> },
                { path: "runs/:runId/profiles", element: <RunProfilesPage /> },
                { path: "profiles/diff", element: <ProfileComparePage /> },
                { path: "profiles/:profileId", element: <ProfileViewerPage /> },
                { path: "hosts", element: <HostsPage /> },
                { path: "tokens", element: <TokensPage /> },
                { path: "import", element: <ImportPage /> },
                { path: "compare", element: <ComparePage /> },
              ],
            },
            { path: "*", element: <NotFound /> },
          ],
        },
      ],
    },
  ]);
}
