// /c/:shortId: a saved comparison for project members. It reads exactly the runs frozen at save time
// and opens with the view it was saved with (the URL can still fold sections or change charts).
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import { TimeAgo } from "@/components/TimeAgo";
import { countOf } from "@/lib/format";
import { useProjectRole } from "@/lib/project-role";
import { useTitle } from "@/lib/use-title";
import { type CompareSource, savedComparisonQueryOptions } from "../api";
import { type CompareViewState, fromViewState, updateCompareParams } from "../view-state";
import { CompareActions } from "./CompareActions";
import { CompareView } from "./CompareView";
import { ShareDialog } from "./ShareDialog";

export function SavedComparisonPage() {
  const { shortId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const q = useQuery(savedComparisonQueryOptions(shortId));
  const [sharing, setSharing] = useState(false);
  const saved = q.data?.comparison;
  useTitle(saved?.title || "Saved comparison");
  const reply = q.data?.compare;
  const view = useMemo(() => fromViewState(saved?.view_state, params), [saved, params]);
  const change = (c: Partial<CompareViewState>) =>
    setParams((p) => updateCompareParams(p, c, true), { preventScrollReset: true });
  const { canWrite } = useProjectRole(saved?.project ?? "");

  if (q.error) {
    return (
      <main className="page">
        <ErrorBox error={q.error} title="Could not open the saved comparison" onRetry={() => q.refetch()} />
        <Link to="/projects">← All projects</Link>
      </main>
    );
  }
  if (!saved || !reply) {
    return (
      <main className="page" aria-busy="true">
        <SkeletonBlock lines={8} />
      </main>
    );
  }
  const slug = saved.project;
  const source: CompareSource = { kind: "saved", shortId, slug };
  const memberUrl = `${window.location.origin}/c/${shortId}`;
  const live = `/p/${slug}/compare?${[...saved.experiments.map((e) => `e=${encodeURIComponent(e)}`), `base=${encodeURIComponent(saved.baseline)}`].join("&")}`;

  return (
    <main className="page" data-testid="saved-comparison">
      <title>{`${saved.title || "Saved comparison"} · perflab`}</title>
      <div className="page-header">
        <div>
          <div className="cmp-meta" style={{ marginTop: 0 }}>
            <Link to={`/p/${slug}`}>{slug}</Link>
            <span className="crumb-sep">/</span>
            <span>saved comparison {shortId}</span>
          </div>
          <h1>{saved.title || `${saved.experiments.join(", ")}`}</h1>
          <div className="cmp-meta">
            <span>
              baseline <strong>{saved.baseline}</strong>
            </span>
            <span>{countOf(saved.run_ids.length, "run")}, frozen</span>
            <span>
              saved <TimeAgo iso={saved.created_at} />
              {saved.created_by ? ` by ${saved.created_by}` : ""}
            </span>
            <Link to={live}>Open as a live comparison</Link>
          </div>
        </div>
        <div className="cmp-toolbar">
          <CompareActions reply={reply} source={source} link={() => memberUrl} />
          {canWrite ? (
            <button type="button" className="btn btn-primary" onClick={() => setSharing(true)}>
              Share
            </button>
          ) : null}
        </div>
      </div>
      <CompareView
        reply={reply}
        source={source}
        view={view}
        onView={change}
        member={canWrite ? { slug, evidence: { shortId } } : undefined}
      />
      <ShareDialog
        open={sharing}
        onClose={() => setSharing(false)}
        slug={slug}
        saved={{ shortId, url: memberUrl }}
        defaultTitle={saved.title}
      />
    </main>
  );
}
