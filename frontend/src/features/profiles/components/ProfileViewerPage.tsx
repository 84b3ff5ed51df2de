// One profile: the flame graph (zoom, search, flame/icicle) and its functions (table and sandwich).
// Everything a reader would want to share is in the URL: zoom path, search, mode, function, sort, tab.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, useRef } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import { type FrameTree, findPath, functionTable, pathOf } from "@/lib/flamegraph";
import { formatInt } from "@/lib/format";
import { patchParams } from "@/lib/url-state";
import { useTitle } from "@/lib/use-title";
import { originalDownloadUrl, type ProfileMeta, profileQueryOptions, profileTreeQueryOptions } from "../api";
import { namePalette } from "../flame-draw";
import { formatValue } from "../format";
import { useFlameKeys } from "../use-flame-keys";
import { useCompiledSearch, useSearchResult } from "../use-search";
import { readViewState, VIEW_DEFAULTS, withZoom } from "../view-state";
import { ComparePicker } from "./ComparePicker";
import { FlameBreadcrumb } from "./FlameBreadcrumb";
import { FlameGraph, graphHeight } from "./FlameGraph";
import { FrameTooltip } from "./FrameTooltip";
import { FunctionTable } from "./FunctionTable";
import { ProfileUnit } from "./ProfileUnit";
import { PrunedNote } from "./PrunedNote";
import { SandwichView } from "./SandwichView";
import { SearchBox } from "./SearchBox";
import { Segmented } from "./Segmented";
import { ViewTabs } from "./ViewTabs";

export function ProfileViewerPage() {
  const { slug = "", profileId = "" } = useParams();
  const meta = useQuery(profileQueryOptions(profileId));
  const tree = useQuery(profileTreeQueryOptions(profileId));
  useTitle(meta.data ? `Flame graph ${meta.data.name}` : "Flame graph", slug);

  return (
    <main className="page page-wide">
      <nav aria-label="Breadcrumb" className="muted">
        <Link to={`/p/${slug}`}>Experiments</Link> <span className="crumb-sep">/</span>{" "}
        {meta.data ? (
          <>
            <Link to={`/p/${slug}/runs/${meta.data.run_id}`}>
              {meta.data.experiment_name ? `${meta.data.experiment_name} · ` : ""}
              {meta.data.run_label || `run ${meta.data.run_id.slice(0, 8)}`}
            </Link>{" "}
            <span className="crumb-sep">/</span>{" "}
            <Link to={`/p/${slug}/runs/${meta.data.run_id}/profiles`}>Profiles</Link>{" "}
            <span className="crumb-sep">/</span> {meta.data.name}
          </>
        ) : (
          "…"
        )}
      </nav>
      {meta.error ? <ErrorBox error={meta.error} title="Could not load the profile" /> : null}
      {meta.data ? <ProfileHeader slug={slug} meta={meta.data} /> : null}
      {tree.error ? (
        <ErrorBox error={tree.error} title="Could not load the flame graph" onRetry={() => tree.refetch()} />
      ) : null}
      {tree.isPending ? (
        <section className="card card-body">
          <SkeletonBlock lines={8} />
        </section>
      ) : null}
      {tree.data ? <PrunedNote pruned={tree.data.pruned} /> : null}
      {tree.data ? <ProfileBody tree={tree.data} /> : null}
    </main>
  );
}

function ProfileHeader({ slug, meta }: { slug: string; meta: ProfileMeta }) {
  return (
    <section className="card">
      <div className="card-body page-header">
        <div>
          <h1>
            {meta.name} {meta.role ? <span className="tag">{meta.role}</span> : null}
          </h1>
          <div className="subtitle flame-meta">
            <span>
              format <strong>{meta.format}</strong>
            </span>
            <span>
              total <strong>{formatValue(meta.total, meta.unit)}</strong>
            </span>
            {meta.event ? (
              <span>
                event <strong>{meta.event}</strong>
              </span>
            ) : null}
            <span>
              <strong>{formatInt(meta.frames)}</strong> frames
            </span>
            <ProfileUnit slug={slug} meta={meta} />
            {meta.lossy ? (
              <span
                className="badge badge-warn"
                title="Rebuilt from an SVG: frames narrower than the SVG could show are missing"
              >
                approximate{meta.tolerance ? ` (±${(meta.tolerance * 100).toFixed(2)}% of total)` : ""}
              </span>
            ) : null}
          </div>
          {meta.warnings?.length ? (
            <ul className="flame-warnings muted" data-testid="profile-warnings">
              {meta.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          ) : null}
        </div>
        <div className="actions">
          <ComparePicker slug={slug} base={meta} />
          <a className="btn btn-sm" href={originalDownloadUrl(meta.profile_id)} download>
            Download original
          </a>
        </div>
      </div>
    </section>
  );
}

function ProfileBody({ tree }: { tree: FrameTree }) {
  const [params, setParams] = useSearchParams();
  const view = readViewState(params);
  const searchRef = useRef<HTMLInputElement>(null);
  const zoomHit = useMemo(() => findPath(tree, view.zoom), [tree, view.zoom]);
  const zoom = zoomHit.node;
  const { regex, error } = useCompiledSearch(view.q);
  const result = useSearchResult(tree, regex);
  const palette = useMemo(() => namePalette(tree, result?.matched ?? null), [tree, result]);
  const functions = useMemo(() => functionTable(tree), [tree]);

  const set = useCallback(
    (patch: Parameters<typeof patchParams>[1], replace = false) =>
      setParams((p) => patchParams(p, patch, VIEW_DEFAULTS), { replace }),
    [setParams],
  );
  const zoomTo = useCallback(
    (node: number) => setParams((p) => withZoom(p, pathOf(tree, node))),
    [setParams, tree],
  );
  useFlameKeys(searchRef, () => {
    if (zoom !== 0) zoomTo(0);
  });

  return (
    <>
      <ViewTabs
        label="Profile views"
        tabs={
          [
            ["graph", "Flame graph"],
            ["functions", "Functions"],
          ] as const
        }
        active={view.tab}
        onSelect={(tab) => set({ tab })}
      />
      <section className="card">
        <div className="toolbar flame-toolbar">
          <SearchBox
            ref={searchRef}
            value={view.q}
            onChange={(q) => set({ q }, true)}
            matched={result ? result.fraction : null}
            error={error}
          />
          <div className="grow" />
          {view.tab === "graph" ? (
            <Segmented
              label="Orientation"
              value={view.mode}
              options={[
                { value: "flame", label: "Flame" },
                { value: "icicle", label: "Icicle" },
              ]}
              onChange={(mode) => set({ mode })}
            />
          ) : null}
        </div>
        {view.tab === "graph" ? (
          <div className="card-body flame-body">
            <FlameBreadcrumb tree={tree} zoom={zoom} onZoom={zoomTo} />
            {!zoomHit.complete ? (
              <p className="muted" role="status">
                This profile has no frame at the end of the zoom path; showing its deepest match.
              </p>
            ) : null}
            <FlameGraph
              tree={tree}
              zoom={zoom}
              orientation={view.mode}
              palette={palette}
              onZoom={zoomTo}
              maxHeight={graphHeight()}
              label="Flame graph"
              tooltip={(node) => <FrameTooltip tree={tree} node={node} />}
            />
            <p className="flame-hint faint">
              Click a frame to zoom, Esc to reset, / to search. Width is the share of {tree.unit}.
            </p>
          </div>
        ) : (
          <div className="flame-functions">
            <FunctionTable
              rows={functions}
              unit={tree.unit}
              profileTotal={tree.total[0] as number}
              sort={view.sort}
              onSort={(sort) => set({ sort })}
              selected={view.fn}
              onSelect={(fn) => set({ fn })}
              filter={regex}
            />
          </div>
        )}
      </section>
      {view.tab === "functions" && view.fn ? (
        <SandwichView tree={tree} fn={view.fn} onClose={() => set({ fn: null })} />
      ) : null}
    </>
  );
}
