// Two profiles: the differential flame graph (the baseline's layout coloured by how each frame's share
// changed, the other profile normalised to the baseline's total) and the two side by side with one zoom
// path and one search. State in the URL: base, other, tab, zoom, q, mode, by, sort.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, useRef } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import {
  type DiffTree,
  diffColor,
  diffIntensity,
  type FrameTree,
  findPath,
  type Orientation,
  onlyInOther,
  pathOf,
  type SearchResult,
} from "@/lib/flamegraph";
import { patchParams } from "@/lib/url-state";
import { useTitle } from "@/lib/use-title";
import {
  type ProfileMeta,
  profileDiffQueryOptions,
  profileQueryOptions,
  profileTreeQueryOptions,
} from "../api";
import { namePalette, nodePalette } from "../flame-draw";
import { formatPct, formatValue } from "../format";
import { useFlameKeys } from "../use-flame-keys";
import { useCompiledSearch, useSearchResult } from "../use-search";
import { COMPARE_DEFAULTS, type CompareState, readCompareState, withZoom } from "../view-state";
import { profileLabel } from "./ComparePicker";
import { DiffFunctionTable } from "./DiffFunctionTable";
import { FlameBreadcrumb } from "./FlameBreadcrumb";
import { FlameGraph, graphHeight } from "./FlameGraph";
import { DiffTooltip, FrameTooltip } from "./FrameTooltip";
import { PrunedNote } from "./PrunedNote";
import { SearchBox } from "./SearchBox";
import { Segmented } from "./Segmented";
import { ViewTabs } from "./ViewTabs";

export function ProfileComparePage() {
  const { slug = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const state = readCompareState(params);
  const baseMeta = useQuery({ ...profileQueryOptions(state.base), enabled: !!state.base });
  const otherMeta = useQuery({ ...profileQueryOptions(state.other), enabled: !!state.other });
  useTitle("Flame graph diff", slug);

  if (!state.base || !state.other) {
    return (
      <main className="page">
        <EmptyState title="Choose two profiles to compare">
          <p>
            Open a profile and pick another one under “Compare with…”, or link here with{" "}
            <code>?base=ID&amp;other=ID</code>.
          </p>
        </EmptyState>
      </main>
    );
  }
  const swap = () =>
    setParams((p) => patchParams(p, { base: state.other, other: state.base }, COMPARE_DEFAULTS));

  return (
    <main className="page page-wide">
      <nav aria-label="Breadcrumb" className="muted">
        <Link to={`/p/${slug}`}>Experiments</Link> <span className="crumb-sep">/</span> Profile comparison
      </nav>
      {baseMeta.error ? <ErrorBox error={baseMeta.error} title="Could not load the base profile" /> : null}
      {otherMeta.error ? <ErrorBox error={otherMeta.error} title="Could not load the other profile" /> : null}
      <section className="card">
        <div className="card-body page-header">
          <div className="compare-sides">
            <ProfileRef slug={slug} side="Base" meta={baseMeta.data} id={state.base} />
            <ProfileRef slug={slug} side="Other" meta={otherMeta.data} id={state.other} />
          </div>
          <div className="actions">
            <button type="button" className="btn btn-sm" onClick={swap}>
              Swap base and other
            </button>
          </div>
        </div>
      </section>
      <CompareBody state={state} />
    </main>
  );
}

function ProfileRef({
  slug,
  side,
  meta,
  id,
}: {
  slug: string;
  side: string;
  meta?: ProfileMeta;
  id: string;
}) {
  return (
    <div>
      <div className="stat-label">{side}</div>
      <Link to={`/p/${slug}/profiles/${id}`} className="compare-ref">
        {meta ? profileLabel(meta) : id.slice(0, 8)}
      </Link>
      {meta ? <div className="faint">{formatValue(meta.total, meta.unit)} total</div> : null}
    </div>
  );
}

function CompareBody({ state }: { state: CompareState }) {
  const [, setParams] = useSearchParams();
  const diff = useQuery(profileDiffQueryOptions(state.base, state.other));
  const baseTree = useQuery({ ...profileTreeQueryOptions(state.base), enabled: state.tab === "side" });
  const otherTree = useQuery({ ...profileTreeQueryOptions(state.other), enabled: state.tab === "side" });
  const searchRef = useRef<HTMLInputElement>(null);
  const { regex, error } = useCompiledSearch(state.q);

  const set = useCallback(
    (patch: Parameters<typeof patchParams>[1], replace = false) =>
      setParams((p) => patchParams(p, patch, COMPARE_DEFAULTS), { replace }),
    [setParams],
  );
  const zoomToPath = useCallback((path: string[]) => setParams((p) => withZoom(p, path)), [setParams]);
  useFlameKeys(searchRef, () => {
    if (state.zoom.length) zoomToPath([]);
  });

  const diffSearch = useSearchResult(diff.data?.tree, regex);
  const baseSearch = useSearchResult(baseTree.data, regex);
  const otherSearch = useSearchResult(otherTree.data, regex);

  return (
    <>
      {diff.data ? <Normalisation diff={diff.data} /> : null}
      {diff.data ? <PrunedNote pruned={diff.data.pruned} /> : null}
      <ViewTabs
        label="Comparison views"
        tabs={
          [
            ["diff", "Differential"],
            ["side", "Side by side"],
          ] as const
        }
        active={state.tab}
        onSelect={(tab) => set({ tab })}
      />
      <section className="card">
        <div className="toolbar flame-toolbar">
          <SearchBox
            ref={searchRef}
            value={state.q}
            onChange={(q) => set({ q }, true)}
            matched={state.tab === "diff" ? (diffSearch?.fraction ?? null) : (baseSearch?.fraction ?? null)}
            suffix={
              state.tab === "side" && otherSearch
                ? `of base · ${formatPct(otherSearch.fraction)} of other`
                : "of base"
            }
            error={error}
          />
          <div className="grow" />
          {state.tab === "diff" ? (
            <Segmented
              label="Colour by"
              value={state.by}
              options={[
                { value: "total", label: "Δ total" },
                { value: "self", label: "Δ self" },
              ]}
              onChange={(by) => set({ by })}
            />
          ) : null}
          <Segmented
            label="Orientation"
            value={state.mode}
            options={[
              { value: "flame", label: "Flame" },
              { value: "icicle", label: "Icicle" },
            ]}
            onChange={(mode) => set({ mode })}
          />
        </div>
        <div className="card-body flame-body">
          {state.tab === "diff" ? (
            diff.error ? (
              <ErrorBox
                error={diff.error}
                title="Could not diff the profiles"
                onRetry={() => diff.refetch()}
              />
            ) : diff.data ? (
              <DiffGraph diff={diff.data} state={state} search={diffSearch} onZoomPath={zoomToPath} />
            ) : (
              <SkeletonBlock lines={8} />
            )
          ) : (
            <div className="compare-grid">
              <SideGraph
                title="Base"
                tree={baseTree.data}
                error={baseTree.error}
                state={state}
                search={baseSearch}
                onZoomPath={zoomToPath}
              />
              <SideGraph
                title="Other"
                tree={otherTree.data}
                error={otherTree.error}
                state={state}
                search={otherSearch}
                onZoomPath={zoomToPath}
              />
            </div>
          )}
        </div>
      </section>
      {state.tab === "diff" && diff.data ? (
        <DiffTables diff={diff.data} state={state} onSort={(sort) => set({ sort })} filter={regex} />
      ) : null}
    </>
  );
}

function Normalisation({ diff }: { diff: DiffTree }) {
  const unit = diff.tree.unit;
  return (
    <div className="alert flame-note flame-norm" role="note" data-testid="normalisation">
      <span>
        <strong>Normalised:</strong> the other profile’s counts are scaled by{" "}
        <strong className="tabular">×{diff.factor.toFixed(4)}</strong> (base total{" "}
        {formatValue(diff.baseTotal, unit)} / other total {formatValue(diff.otherTotalSamples, unit)}), so a
        frame that kept its share of the profile shows no change.
      </span>
    </div>
  );
}

function DiffGraph({
  diff,
  state,
  search,
  onZoomPath,
}: {
  diff: DiffTree;
  state: CompareState;
  search: SearchResult | null;
  onZoomPath: (p: string[]) => void;
}) {
  const { tree } = diff;
  const zoom = useMemo(() => findPath(tree, state.zoom).node, [tree, state.zoom]);
  const intensity = useMemo(() => diffIntensity(diff, state.by), [diff, state.by]);
  const palette = useMemo(() => {
    const colors = Array.from(intensity.value, (v) => diffColor(v));
    return nodePalette(colors);
  }, [intensity]);
  const zoomTo = (node: number) => onZoomPath(pathOf(tree, node));
  return (
    <>
      <FlameBreadcrumb tree={tree} zoom={zoom} onZoom={zoomTo} />
      <FlameGraph
        tree={tree}
        zoom={zoom}
        orientation={state.mode}
        palette={palette}
        outline={search?.matched ?? null}
        onZoom={zoomTo}
        maxHeight={graphHeight()}
        label="Differential flame graph"
        tooltip={(node) => <DiffTooltip diff={diff} node={node} />}
      />
      <DiffLegend maxShare={intensity.maxAbsShare} by={state.by} />
    </>
  );
}

function DiffLegend({ maxShare, by }: { maxShare: number; by: "total" | "self" }) {
  const stops = [-1, -0.5, -0.15, 0, 0.15, 0.5, 1];
  return (
    <div className="diff-legend">
      <span className="muted">shrank</span>
      <span className="diff-legend-bar" aria-hidden="true">
        {stops.map((s) => {
          const [r, g, b] = diffColor(s);
          return <span key={s} style={{ background: `rgb(${r} ${g} ${b})` }} />;
        })}
      </span>
      <span className="muted">grew</span>
      <span className="faint">
        full colour = {formatPct(maxShare)} of the profile (
        {by === "total" ? "frame with its callees" : "frame’s own time"}
        ); width = base
      </span>
    </div>
  );
}

function SideGraph({
  title,
  tree,
  error,
  state,
  search,
  onZoomPath,
}: {
  title: string;
  tree?: FrameTree;
  error: unknown;
  state: CompareState;
  search: SearchResult | null;
  onZoomPath: (p: string[]) => void;
}) {
  const zoomHit = useMemo(() => (tree ? findPath(tree, state.zoom) : null), [tree, state.zoom]);
  const palette = useMemo(() => (tree ? namePalette(tree, search?.matched ?? null) : null), [tree, search]);
  if (error) return <ErrorBox error={error} title={`Could not load the ${title.toLowerCase()} profile`} />;
  if (!tree || !zoomHit || !palette) return <SkeletonBlock lines={8} />;
  const zoomTo = (node: number) => onZoomPath(pathOf(tree, node));
  return (
    <div className="compare-side">
      <div className="compare-side-head">
        <h3>{title}</h3>
        {search ? (
          <span className="muted tabular" data-testid={`matched-${title.toLowerCase()}`}>
            matched {formatPct(search.fraction)}
          </span>
        ) : null}
      </div>
      <FlameBreadcrumb tree={tree} zoom={zoomHit.node} onZoom={zoomTo} />
      {!zoomHit.complete ? <p className="faint">Not in this profile past the highlighted frame.</p> : null}
      <FlameGraph
        tree={tree}
        zoom={zoomHit.node}
        orientation={state.mode as Orientation}
        palette={palette}
        onZoom={zoomTo}
        label={`${title} flame graph`}
        tooltip={(node) => <FrameTooltip tree={tree} node={node} />}
      />
    </div>
  );
}

function DiffTables({
  diff,
  state,
  onSort,
  filter,
}: {
  diff: DiffTree;
  state: CompareState;
  onSort: (s: CompareState["sort"]) => void;
  filter: RegExp | null;
}) {
  const only = useMemo(() => onlyInOther(diff), [diff]);
  const unit = diff.tree.unit;
  return (
    <div className="grid-2 compare-tables">
      <section className="card" aria-labelledby="fn-deltas">
        <div className="card-header">
          <h2 id="fn-deltas">Function changes</h2>
          <span className="faint">normalised to the base total</span>
        </div>
        <DiffFunctionTable diff={diff} sort={state.sort} onSort={onSort} filter={filter} />
      </section>
      <section className="card" aria-labelledby="only-other">
        <div className="card-header">
          <h2 id="only-other">Only in the other profile</h2>
          <span className="faint">{only.length} call paths</span>
        </div>
        {only.length ? (
          <div className="table-wrap flame-table">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Call path (new part last)</th>
                  <th scope="col" className="num">
                    Total
                  </th>
                  <th scope="col" className="num">
                    Share
                  </th>
                </tr>
              </thead>
              <tbody>
                {only.slice(0, 100).map((o) => (
                  <tr key={o.node}>
                    <td className="mono flame-path">
                      <span className="faint">{o.path.slice(0, -1).slice(-2).join(" › ")} › </span>
                      {o.name}
                    </td>
                    <td className="num">{formatValue(o.total, unit)}</td>
                    <td className="num">{formatPct(o.share, 2)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <div className="card-body muted">Every call path of the other profile is also in the base.</div>
        )}
      </section>
    </div>
  );
}
