// /p/:slug/compare?e=direct&e=default&base=direct: the live comparison of experiments picked in the
// history. Everything on screen is in the URL; Save & share freezes it into a snapshot.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
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
  const q = useQuery(liveCompareQueryOptions(slug, state.experiments, state.baseline));
  useTitle(q.data ? `Compare ${defaultTitle(q.data)}` : "Compare", slug);
  const reply = q.data;
  const save = useSaveComparison(slug);
  const [sharing, setSharing] = useState(false);
  const [saved, setSaved] = useState<{ shortId: string; url: string } | null>(null);

  const change = useCallback(
    (c: Partial<CompareViewState>, replace = false) =>
      setParams((p) => updateCompareParams(p, c), { replace }),
    [setParams],
  );

  // The history links by id (?e=12); once the names are known, the address reads ?e=direct&e=default.
  useEffect(() => {
    if (!reply) return;
    const byId = new Map(reply.columns.map((c) => [String(c.id), c.name]));
    if (state.experiments.some((e) => /^\d+$/.test(e) && byId.has(e) && byId.get(e) !== e)) {
      change({ experiments: state.experiments.map((e) => byId.get(e) ?? e) }, true);
    }
  }, [reply, state.experiments, change]);

  // A new selection or baseline is a new comparison: an earlier snapshot no longer matches it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on selection change only
  useEffect(() => setSaved(null), [reply?.baseline, reply?.experiments.join("\n")]);

  const source: CompareSource = {
    kind: "live",
    slug,
    experiments: state.experiments,
    baseline: state.baseline,
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
                {reply.experiments.length} experiments, {reply.columns.reduce((n, c) => n + c.runs.length, 0)}{" "}
                runs
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
                value={reply.baseline}
                onChange={(e) => change({ baseline: e.target.value })}
              >
                {reply.experiments.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </div>
            <CompareActions reply={reply} source={source} link={() => window.location.href} />
            <button type="button" className="btn btn-primary" onClick={() => setSharing(true)}>
              Save &amp; share
            </button>
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
          onBaseline={(name) => change({ baseline: name })}
          member={{
            slug,
            evidence: saved
              ? { shortId: saved.shortId }
              : { save: async () => (await doSave(defaultTitle(reply))).shortId },
          }}
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
        />
      ) : null}
    </main>
  );
}

export function defaultTitle(reply: { baseline: string; experiments: string[] }): string {
  const others = reply.experiments.filter((e) => e !== reply.baseline);
  return `${others.join(", ")} vs ${reply.baseline}`.slice(0, 200);
}
