// The project page: the history of the investigation. Everything the user sets here (page, sort,
// filters, search, selection) is in the URL, so "send me that view" is a copy of the address bar.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { Pagination } from "@/components/Pagination";
import { useProjectRole } from "@/lib/project-role";
import { toggleInList } from "@/lib/url-state";
import { useTitle } from "@/lib/use-title";
import { experimentHistoryQueryOptions, rpsChangePointsQueryOptions } from "../api";
import {
  clearFilters,
  type HistoryState,
  hasFilters,
  parseHistoryState,
  updateHistoryParams,
} from "../history-state";
import { AgentQuickstart } from "./AgentQuickstart";
import { HistoryTable } from "./HistoryTable";
import { HistoryToolbar } from "./HistoryToolbar";
import { NewExperimentDialog } from "./NewExperimentDialog";

export function ExperimentsPage() {
  const { slug = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const state = useMemo(() => parseHistoryState(params), [params]);
  const history = useQuery(experimentHistoryQueryOptions(slug, state));
  const changePoints = useQuery(rpsChangePointsQueryOptions(slug));
  useTitle("Experiments", slug);
  const [creating, setCreating] = useState(false);
  const { role, canWrite } = useProjectRole(slug);

  const change = useCallback(
    (c: Partial<HistoryState>, opts?: { replace?: boolean }) =>
      setParams((prev) => updateHistoryParams(prev, c), { replace: opts?.replace ?? false }),
    [setParams],
  );

  const data = history.data;
  const filtered = hasFilters(state);
  const projectEmpty = data !== undefined && data.total === 0 && !filtered;
  const compareHref = `/p/${slug}/compare?${state.selected.map((id) => `e=${id}`).join("&")}`;

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Experiments</h1>
          <div className="subtitle">
            Each experiment is one configuration tried; runs repeat it to measure noise.
          </div>
        </div>
        <div className="actions">
          {canWrite ? (
            <>
              <Link className="btn" to={`/p/${slug}/import`}>
                Import results
              </Link>
              <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                New experiment
              </button>
            </>
          ) : role === "viewer" ? (
            <span className="tag" title="Viewers read; ask an owner for the member role to write">
              read only
            </span>
          ) : null}
        </div>
      </div>

      {history.error ? <ErrorBox error={history.error} onRetry={() => history.refetch()} /> : null}

      <section className="card" aria-label="Experiment history">
        {projectEmpty ? (
          <AgentQuickstart slug={slug} />
        ) : (
          <>
            <HistoryToolbar
              state={state}
              knownTags={data?.tags ?? []}
              onChange={change}
              onClear={() => setParams((prev) => clearFilters(prev))}
              filtered={filtered}
            />
            {state.selected.length > 0 ? (
              <div className="selection-bar" role="status">
                <strong>{state.selected.length} selected</strong>
                {state.selected.length >= 2 ? (
                  <Link className="btn btn-sm btn-primary" to={compareHref}>
                    Compare
                  </Link>
                ) : (
                  <span className="muted">Select at least two experiments to compare.</span>
                )}
                <button
                  type="button"
                  className="btn btn-sm btn-ghost"
                  onClick={() => change({ selected: [] })}
                >
                  Clear selection
                </button>
              </div>
            ) : null}
            {data && data.total === 0 ? (
              <EmptyState
                title="No experiments match these filters"
                action={
                  <button
                    type="button"
                    className="btn"
                    onClick={() => setParams((prev) => clearFilters(prev))}
                  >
                    Clear filters
                  </button>
                }
              >
                <p>Try a broader search, another status, or a wider date range.</p>
              </EmptyState>
            ) : (
              <HistoryTable
                slug={slug}
                items={data?.items}
                state={state}
                loading={history.isPending}
                changePoints={changePoints.data}
                onSort={(sort, order) => change({ sort, order })}
                onToggle={(id) => change({ selected: toggleInList(state.selected, id) })}
                onTogglePage={(ids, select) =>
                  change({
                    selected: select
                      ? [...state.selected, ...ids.filter((id) => !state.selected.includes(id))]
                      : state.selected.filter((id) => !ids.includes(id)),
                  })
                }
                onTag={(tag) => !state.tags.includes(tag) && change({ tags: [...state.tags, tag] })}
              />
            )}
            {data && data.total > 0 ? (
              <Pagination
                page={data.page}
                pageSize={data.page_size}
                total={data.total}
                onPage={(page) => change({ page })}
              />
            ) : null}
          </>
        )}
      </section>

      <NewExperimentDialog
        slug={slug}
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(exp) => {
          setCreating(false);
          navigate(`/p/${slug}/experiments/${exp.id}`);
        }}
      />
    </main>
  );
}
