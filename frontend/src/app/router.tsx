// All routes. React Router in library (data) mode; pages fetch with TanStack Query so that caching,
// polling and invalidation live in one place. The few loaders only start those queries early: they run
// in parallel with a lazy page's code, where the page itself would ask only once that code ran.
import type { QueryClient } from "@tanstack/react-query";
import { createBrowserRouter, type LoaderFunctionArgs, Navigate } from "react-router";
import { SkeletonBlock } from "@/components/Skeleton";
import { AlertsPage } from "@/features/alerts";
import { LoginPage, mayHaveSession, meQueryOptions, RequireAuth } from "@/features/auth";
import { liveCompareQueryOptions } from "@/features/compare/api";
import { parseCompareState } from "@/features/compare/view-state";
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
const trashPage = async () => ({ Component: (await import("@/features/trash")).TrashPage });
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

export function createAppRouter(queryClient: QueryClient) {
  // Never awaited: the page renders as soon as its code is there and shows the query's own state.
  const prefetchMe = () => {
    if (mayHaveSession()) void queryClient.prefetchQuery(meQueryOptions());
    return null;
  };
  const prefetchCompare = ({ params, request }: LoaderFunctionArgs) => {
    const state = parseCompareState(new URL(request.url).searchParams);
    if (mayHaveSession() && state.experiments.length > 0) {
      const { slug = "" } = params;
      void queryClient.prefetchQuery(
        liveCompareQueryOptions(slug, state.experiments, state.baseline, state.includeInvalid),
      );
    }
    return null;
  };
  return createBrowserRouter([
    { path: "/login", element: <LoginPage />, errorElement: <RouteError /> },
    // The public share view: outside the login gate and the app frame; the token is the credential.
    { path: "/s/:token", lazy: sharePage, hydrateFallbackElement: loading, errorElement: <RouteError /> },
    {
      element: <RequireAuth />,
      loader: prefetchMe,
      // A route with a loader needs its own fallback for the first render, or React Router warns.
      hydrateFallbackElement: loading,
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
                { path: "alerts", element: <AlertsPage /> },
                { path: "trends", lazy: trendPage, hydrateFallbackElement: loading },
                { path: "trash", lazy: trashPage, hydrateFallbackElement: loading },
                { path: "import", lazy: importPage, hydrateFallbackElement: loading },
                {
                  path: "compare",
                  loader: prefetchCompare,
                  lazy: comparePage,
                  hydrateFallbackElement: loading,
                },
              ],
            },
            { path: "*", element: <NotFound /> },
          ],
        },
      ],
    },
  ]);
}
