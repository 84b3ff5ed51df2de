// All routes. React Router in library (data) mode: no loaders; pages fetch with TanStack Query so
// that caching, polling and invalidation live in one place.
import { createBrowserRouter, Navigate } from "react-router";
import { SkeletonBlock } from "@/components/Skeleton";
import { LoginPage, RequireAuth } from "@/features/auth";
import { ExperimentPage, ExperimentsPage } from "@/features/experiments";
import { HostsPage } from "@/features/hosts";
import { MembersPage } from "@/features/members";
import { ProjectsPage } from "@/features/projects";
import { RunRedirect } from "@/features/runs/components/RunRedirect";
import { TokensPage } from "@/features/tokens";
import { AppLayout } from "./AppLayout";
import { NotFound, RouteError } from "./NotFound";

// The heavy pages (charts, flame graphs, the comparison) load on first visit, so the login and
// project lists don't download recharts and the canvas renderer.
const comparePage = async () => ({ Component: (await import("@/features/compare")).ComparePage });
const savedComparisonPage = async () => ({
  Component: (await import("@/features/compare")).SavedComparisonPage,
});
const sharePage = async () => ({ Component: (await import("@/features/compare")).SharePage });
const runPage = async () => ({ Component: (await import("@/features/runs")).RunPage });
const trendPage = async () => ({ Component: (await import("@/features/trends")).TrendPage });
const importPage = async () => ({ Component: (await import("@/features/imports")).ImportPage });
const runProfilesPage = async () => ({ Component: (await import("@/features/profiles")).RunProfilesPage });
const profileComparePage = async () => ({
  Component: (await import("@/features/profiles")).ProfileComparePage,
});
const profileViewerPage = async () => ({
  Component: (await import("@/features/profiles")).ProfileViewerPage,
});

import { ProjectLayout } from "./ProjectLayout";

// What a lazy page shows while its code loads on the first visit (without it React Router warns on
// every direct load of such a page, and the frame would be blank).
const loading = (
  <main className="page" aria-busy="true">
    <SkeletonBlock lines={5} />
  </main>
);

export function createAppRouter() {
  return createBrowserRouter([
    { path: "/login", element: <LoginPage />, errorElement: <RouteError /> },
    // The public share view: outside the login gate and the app frame; the token is the credential.
    { path: "/s/:token", lazy: sharePage, hydrateFallbackElement: loading, errorElement: <RouteError /> },
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
            { path: "c/:shortId", lazy: savedComparisonPage, hydrateFallbackElement: loading },
            {
              path: "p/:slug",
              element: <ProjectLayout />,
              children: [
                { index: true, element: <ExperimentsPage /> },
                { path: "experiments/:experimentId", element: <ExperimentPage /> },
                { path: "runs/:runId", lazy: runPage, hydrateFallbackElement: loading },
                { path: "runs/:runId/profiles", lazy: runProfilesPage, hydrateFallbackElement: loading },
                { path: "profiles/diff", lazy: profileComparePage, hydrateFallbackElement: loading },
                { path: "profiles/:profileId", lazy: profileViewerPage, hydrateFallbackElement: loading },
                { path: "hosts", element: <HostsPage /> },
                { path: "tokens", element: <TokensPage /> },
                { path: "members", element: <MembersPage /> },
                { path: "trends", lazy: trendPage, hydrateFallbackElement: loading },
                { path: "import", lazy: importPage, hydrateFallbackElement: loading },
                { path: "compare", lazy: comparePage, hydrateFallbackElement: loading },
              ],
            },
            { path: "*", element: <NotFound /> },
          ],
        },
      ],
    },
  ]);
}
