// Unknown paths and render errors: say what happened and offer a way back.
import { isRouteErrorResponse, Link, useRouteError } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { useTitle } from "@/lib/use-title";

export function NotFound() {
  useTitle("Page not found");
  return (
    <main className="page">
      <section className="card">
        <EmptyState title="Page not found" action={<Link to="/projects">Go to projects</Link>}>
          <p>This address does not match any perflab page. The link may be old or mistyped.</p>
        </EmptyState>
      </section>
    </main>
  );
}

export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : String(error);
  return (
    <main className="page">
      <div className="alert alert-error" role="alert">
        <span className="alert-title">This page failed to render</span>
        <span className="mono">{message}</span>
        <span>
          Reload the page; if it keeps failing, report it with the address.{" "}
          <a href="/projects">Go to projects</a>
        </span>
      </div>
    </main>
  );
}
