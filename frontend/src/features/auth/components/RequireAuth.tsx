// Gate for every logged-in page: asks the server who we are, and sends anonymous users to /login
// with ?next= so they come back to the same view (filters and all) afterwards.
import { useQuery } from "@tanstack/react-query";
import { Navigate, Outlet, useLocation } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import { ApiError } from "@/lib/api-error";
import { mayHaveSession, meQueryOptions } from "../api";

export function loginPath(location: { pathname: string; search: string; hash?: string }): string {
  const here = `${location.pathname}${location.search}${location.hash ?? ""}`;
  return here === "/" ? "/login" : `/login?next=${encodeURIComponent(here)}`;
}

export function RequireAuth() {
  const location = useLocation();
  const session = mayHaveSession();
  const me = useQuery({ ...meQueryOptions(), enabled: session });

  // No session cookie at all: straight to the login page, without a 401 in the console.
  if (!session && !me.data) return <Navigate to={loginPath(location)} replace />;
  if (me.isPending) {
    return (
      <main className="page">
        <SkeletonBlock lines={5} />
      </main>
    );
  }
  if (me.error) {
    if (me.error instanceof ApiError && me.error.status === 401) {
      return <Navigate to={loginPath(location)} replace />;
    }
    return (
      <main className="page">
        <ErrorBox error={me.error} title="Could not reach perflab" onRetry={() => me.refetch()} />
      </main>
    );
  }
  return <Outlet />;
}
