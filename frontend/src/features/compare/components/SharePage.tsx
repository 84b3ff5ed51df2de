// /s/:token: the public, read-only view of one saved comparison. No app chrome, no write controls,
// no login; it reads only what the token opens. Revoked or expired links say so plainly.
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useParams, useSearchParams } from "react-router";
import { SkeletonBlock } from "@/components/Skeleton";
import { isApiError } from "@/lib/api-error";
import { countOf, formatDateTime } from "@/lib/format";
import { type CompareSource, shareViewQueryOptions } from "../api";
import { type CompareViewState, fromViewState, updateCompareParams } from "../view-state";
import { CompareActions } from "./CompareActions";
import { CompareView } from "./CompareView";
import "../compare.css";
import { useTitle } from "@/lib/use-title";

function Frame({ children }: { children: React.ReactNode }) {
  return (
    <div className="share-page">
      {/* Keep the token out of Referer headers and the page out of search engines, whatever the server sent. */}
      <meta name="referrer" content="no-referrer" />
      <meta name="robots" content="noindex, nofollow" />
      <div className="share-bar">
        <strong>perflab</strong>
        <span>shared comparison · read-only</span>
      </div>
      {children}
    </div>
  );
}

function LinkFailed({ status, message }: { status: number; message: string }) {
  const gone = status === 410;
  const limited = status === 429;
  return (
    <Frame>
      <title>Link not available · perflab</title>
      <main className="page" style={{ maxWidth: 640 }}>
        <section className="card card-body" role="alert" data-testid="share-error">
          <h1 style={{ fontSize: 18 }}>
            {gone
              ? "This link is no longer valid"
              : limited
                ? "Too many attempts"
                : "This link does not exist"}
          </h1>
          <p className="muted">
            {gone
              ? `${message || "It was revoked or has expired"}. Ask whoever shared it for a new link.`
              : limited
                ? "Wait a minute, then open the link again."
                : "Check that the whole link was copied, or ask whoever shared it for a new one."}
          </p>
          <p className="faint" style={{ margin: 0 }}>
            HTTP {status}
          </p>
        </section>
      </main>
    </Frame>
  );
}

export function SharePage() {
  const { token = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const q = useQuery(shareViewQueryOptions(token));
  const shared = q.data?.comparison;
  const reply = q.data?.compare;
  useTitle(shared?.title || "Shared comparison");
  const view = useMemo(() => fromViewState(shared?.view_state, params), [shared, params]);
  const allowed = useMemo(
    () =>
      shared?.view_state.overlays?.length
        ? shared.view_state.overlays.map((o) => ({ role: o.role, metric: o.metric }))
        : null,
    [shared],
  );

  if (q.error) {
    const status = isApiError(q.error) ? q.error.status : 0;
    return <LinkFailed status={status} message={q.error instanceof Error ? q.error.message : ""} />;
  }
  if (!shared || !reply) {
    return (
      <Frame>
        <main className="page" aria-busy="true">
          <SkeletonBlock lines={8} />
        </main>
      </Frame>
    );
  }
  const source: CompareSource = { kind: "share", token };
  const change = (c: Partial<CompareViewState>) =>
    setParams((p) => updateCompareParams(p, c, true), { replace: true, preventScrollReset: true });
  return (
    <Frame>
      <title>{`${shared.title || "Shared comparison"} · perflab`}</title>
      <main className="page" data-testid="share-view">
        <div className="page-header">
          <div>
            <h1>{shared.title || shared.experiments.join(", ")}</h1>
            <div className="cmp-meta">
              <span>
                baseline <strong>{shared.baseline}</strong>
              </span>
              <span>{countOf(shared.experiments.length, "experiment")}</span>
              <span>saved {formatDateTime(shared.created_at)}</span>
              <span>link expires {formatDateTime(shared.expires_at)}</span>
            </div>
          </div>
          <CompareActions
            reply={reply}
            source={source}
            link={() => window.location.href.split("?")[0] ?? ""}
          />
        </div>
        <CompareView reply={reply} source={source} view={view} onView={change} allowedOverlays={allowed} />
      </main>
    </Frame>
  );
}
