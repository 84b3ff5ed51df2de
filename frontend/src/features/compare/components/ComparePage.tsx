// /p/:slug/compare?e=12&e=13&base=12: the live comparison of experiments picked in the history, by
// id so a rename breaks no link (names are shown; an old ?e=direct link resolves, then reads by id).
// Everything on screen is in the URL; Save & share freezes it into a snapshot.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import { countOf } from "@/lib/format";
import { useProjectRole } from "@/lib/project-role";
import { useTitle } from "@/lib/use-title";
import { type CompareSource, liveCompareQueryOptions, useSaveComparison } from "../api";
import { type CompareViewState, parseCompareState, toViewState, updateCompareParams } from "../view-state";
import { CompareActions } from "./CompareActions";
import { CompareView, effectiveOverlays } from "./CompareView";
import { ShareDialog } from "./ShareDialog";

export function ComparePage() {
  const { slug = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const state = useMemo(() => parseCompareState(params), [params]);
  const q = useQuery(liveCompareQueryOptions(slug, state.experiments, state.baseline, state.includeInvalid));
  useTitle(q.data ? `Compare ${defaultTitle(q.data)}` : "Compare", slug);
  const reply = q.data;
  const save = useSaveComparison(slug);
  const [sharing, setSharing] = useState(false);
  // Viewers read: no Save & share, no notes or decisions (the server would refuse them).
  const { canWrite } = useProjectRole(slug);
  const [saved, setSaved] = useState<{ shortId: string; url: string } | null>(null);
  // The public link shown once when created (only its hash is stored): Markdown carries it from then on.
  const [publicUrl, setPublicUrl] = useState<string | null>(null);

  const change = useCallback(
    (c: Partial<CompareViewState>, replace = false) =>
      setParams((p) => updateCompareParams(p, c), { replace, preventScrollReset: true }),
    [setParams],
  );

  // Links name experiments by id; one written with names (older links, hand-typed ones, a name from
  // before a rename) is rewritten to ids once the server has resolved them.
  const current = reply && !q.isPlaceholderData;
  useEffect(() => {
    if (!reply || !current) return;
    const refs = [...new Set([state.baseline, ...state.experiments].filter(Boolean))];
    if (refs.length !== reply.columns.length || refs.every((r) => /^\d+$/.test(r))) return;
    // The reply's columns are the references in order (baseline first), however each was resolved.
    const idOf = new Map(refs.map((ref, i) => [ref, String(reply.columns[i]?.id ?? ref)]));
    const experiments = state.experiments.map((e) => idOf.get(e) ?? e);
    const baseline = state.baseline ? (idOf.get(state.baseline) ?? state.baseline) : "";
    if (experiments.some((e, i) => e !== state.experiments[i]) || baseline !== state.baseline) {
      change({ experiments, baseline }, true);
    }
  }, [reply, current, state.experiments, state.baseline, change]);
  const idByName = useMemo(() => new Map((reply?.columns ?? []).map((c) => [c.name, String(c.id)])), [reply]);
  const setBaseline = (name: string) => change({ baseline: idByName.get(name) ?? name });

  // A new selection or baseline is a new comparison: an earlier snapshot no longer matches it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on selection change only
  useEffect(() => {
    setSaved(null);
    setPublicUrl(null);
  }, [reply?.baseline, reply?.experiments.join("\n")]);

  const source: CompareSource = {
    kind: "live",
    slug,
    experiments: state.experiments,
    baseline: state.baseline,
    includeInvalid: state.includeInvalid,
  };
  // Back to the history with the same experiments ticked (the history selects by id).
  const ids = reply?.columns.map((c) => c.id) ?? state.experiments.filter((e) => /^\d+$/.test(e));
  const back = `/p/${slug}?${ids.map((id) => `sel=${id}`).join("&")}`;

  const doSave = async (title: string) => {
    if (!reply) throw new Error("nothing to save");
    const row = await save.mutateAsync({
      baseline: reply.baseline,
      experiments: reply.experiments,
      title,
      view_state: toViewState(state, effectiveOverlays(reply, state)),
    });
    const s = { shortId: row.short_id, url: row.url };
    setSaved(s);
    return s;
  };

  if (state.experiments.length === 0) {
    return (
      <main className="page">
        <h1>Compare</h1>
        <section className="card">
          <EmptyState
            title="No experiments selected"
            action={
              <Link className="btn btn-primary" to={`/p/${slug}`}>
                Choose experiments
              </Link>
            }
          >
            <p>Tick two or more experiments in the history and press Compare.</p>
          </EmptyState>
        </section>
      </main>
    );
  }

  return (
    <main className="page" data-testid="compare-page">
      <title>{`Compare ${reply?.experiments.join(", ") ?? ""} · perflab`}</title>
      <div className="page-header">
        <div>
          <h1>Compare</h1>
          {reply ? (
            <div className="cmp-meta">
              <span>
                {countOf(reply.experiments.length, "experiment")},{" "}
                {countOf(
                  reply.columns.reduce((n, c) => n + c.runs.length, 0),
                  "run",
                )}
              </span>
              <span>
                baseline <strong>{reply.baseline}</strong>
              </span>
              <Link to={back}>← back to the selection</Link>
            </div>
          ) : null}
        </div>
        {reply ? (
          <div className="cmp-toolbar">
            <div className="field">
              <label htmlFor="cmp-baseline" className="field-label">
                Baseline
              </label>
              <select
                id="cmp-baseline"
                className="select"
                value={String(reply.columns.find((c) => c.is_baseline)?.id ?? "")}
                onChange={(e) => change({ baseline: e.target.value })}
              >
                {reply.columns.map((c) => (
                  <option key={c.id} value={String(c.id)}>
                    {c.name}
                  </option>
                ))}
              </select>
            </div>
            <label className="cmp-toggle" title="Runs with error responses, no requests or a cut load stream">
              <input
                type="checkbox"
                checked={state.includeInvalid}
                onChange={(e) => change({ includeInvalid: e.target.checked })}
                data-testid="include-invalid"
              />{" "}
              Include invalid runs
              {reply.validity.invalid_runs ? ` (${reply.validity.invalid_runs})` : ""}
            </label>
            <CompareActions reply={reply} source={source} link={() => publicUrl ?? window.location.href} />
            {canWrite ? (
              <button type="button" className="btn btn-primary" onClick={() => setSharing(true)}>
                Save &amp; share
              </button>
            ) : null}
          </div>
        ) : null}
      </div>

      {q.error ? <ErrorBox error={q.error} title="Could not compare" onRetry={() => q.refetch()} /> : null}
      {q.isPending ? (
        <section className="card card-body" aria-busy="true">
          <SkeletonBlock lines={8} />
        </section>
      ) : null}

      {reply ? (
        <CompareView
          reply={reply}
          source={source}
          view={state}
          onView={(c) => change(c)}
          onBaseline={setBaseline}
          member={
            canWrite
              ? {
                  slug,
                  evidence: saved
                    ? { shortId: saved.shortId }
                    : { save: async () => (await doSave(defaultTitle(reply))).shortId },
                }
              : undefined
          }
        />
      ) : null}

      {reply ? (
        <ShareDialog
          open={sharing}
          onClose={() => setSharing(false)}
          slug={slug}
          saved={saved}
          onSave={doSave}
          saving={save.isPending}
          saveError={save.error}
          defaultTitle={defaultTitle(reply)}
          onPublicLink={setPublicUrl}
        />
      ) : null}
    </main>
  );
}

export function defaultTitle(reply: { baseline: string; experiments: string[] }): string {
  const others = reply.experiments.filter((e) => e !== reply.baseline);
  return `${others.join(", ")} vs ${reply.baseline}`.slice(0, 200);
}
