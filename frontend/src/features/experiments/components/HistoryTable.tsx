// The experiment history table: one row per experiment with its headline numbers (median over runs).
import { Link } from "react-router";
import { MarkdownText } from "@/components/MarkdownText";
import { SkeletonRows } from "@/components/Skeleton";
import { SortHeader } from "@/components/SortHeader";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { formatCompact, formatInt, formatMs } from "@/lib/format";
import type { ExperimentListItem } from "../api";
import type { HistoryState, Order, SortKey } from "../history-state";

interface Props {
  slug: string;
  items: ExperimentListItem[] | undefined;
  state: HistoryState;
  loading: boolean;
  onSort: (sort: SortKey, order: Order) => void;
  onToggle: (id: number) => void;
  onTogglePage: (ids: number[], select: boolean) => void;
  onTag: (tag: string) => void;
}

const COLUMNS = 10;

export function HistoryTable({ slug, items, state, loading, onSort, onToggle, onTogglePage, onTag }: Props) {
  const pageIds = items?.map((e) => e.id) ?? [];
  const selectedOnPage = pageIds.filter((id) => state.selected.includes(id)).length;
  const allOnPage = pageIds.length > 0 && selectedOnPage === pageIds.length;
  const sortProps = { current: state.sort, order: state.order, onSort };

  return (
    <div className="table-wrap">
      <table className="table" aria-label="Experiments">
        <thead>
          <tr>
            <th className="check" scope="col">
              <input
                type="checkbox"
                aria-label={allOnPage ? "Deselect all on this page" : "Select all on this page"}
                checked={allOnPage}
                ref={(el) => {
                  if (el) el.indeterminate = selectedOnPage > 0 && !allOnPage;
                }}
                disabled={pageIds.length === 0}
                onChange={() => onTogglePage(pageIds, !allOnPage)}
              />
            </th>
            <SortHeader label="Name" sortKey="name" {...sortProps} />
            <SortHeader label="Status" sortKey="status" {...sortProps} />
            <th scope="col">Tags</th>
            <SortHeader label="Runs" sortKey="runs" numeric {...sortProps} />
            <SortHeader label="RPS" sortKey="rps" numeric {...sortProps} />
            <SortHeader label="p99" sortKey="p99" numeric firstOrder="asc" {...sortProps} />
            <th scope="col">Decision</th>
            <SortHeader label="Last run" sortKey="last_run" firstOrder="desc" {...sortProps} />
            <SortHeader label="Created" sortKey="created" firstOrder="desc" {...sortProps} />
          </tr>
        </thead>
        {loading && !items ? (
          <SkeletonRows rows={6} columns={COLUMNS} />
        ) : (
          <tbody>
            {items?.map((e) => {
              const selected = state.selected.includes(e.id);
              return (
                <tr key={e.id} aria-selected={selected}>
                  <td className="check">
                    <input
                      type="checkbox"
                      aria-label={`Select ${e.name}`}
                      checked={selected}
                      onChange={() => onToggle(e.id)}
                    />
                  </td>
                  <td>
                    <Link to={`/p/${slug}/experiments/${e.id}`}>{e.name}</Link>
                    {e.hypothesis ? <MarkdownText source={e.hypothesis} excerpt /> : null}
                  </td>
                  <td>
                    {e.running_count > 0 ? (
                      <StatusBadge status="running" />
                    ) : (
                      <StatusBadge status={e.status} />
                    )}
                  </td>
                  <td>
                    {e.tags.map((t) => (
                      <button
                        key={t}
                        type="button"
                        className="tag"
                        title={`Filter by tag ${t}`}
                        onClick={() => onTag(t)}
                      >
                        {t}
                      </button>
                    ))}
                  </td>
                  <td className="num">
                    {formatInt(e.run_count)}
                    {e.invalid_runs ? (
                      <span
                        className="cmp-flag"
                        data-testid="history-invalid"
                        title="invalid runs (error responses, no requests, a cut load stream): left out of the medians"
                      >
                        {" "}
                        ({e.invalid_runs} invalid)
                      </span>
                    ) : null}
                  </td>
                  <td className="num" title={e.headline.requests_per_sec?.toFixed(2)}>
                    {formatCompact(e.headline.requests_per_sec)}
                  </td>
                  <td className="num">{formatMs(e.headline.latency_p99_ms)}</td>
                  <td>
                    <DecisionCell decision={e.decision} />
                  </td>
                  <td>
                    <TimeAgo iso={e.last_run_at} empty="never" />
                  </td>
                  <td>
                    <TimeAgo iso={e.created_at} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        )}
      </table>
    </div>
  );
}

// The experiment's latest decision: status, then "component knob: before → after". The API types the
// decision as a free-form object, so every field is read defensively.
function DecisionCell({ decision }: { decision: ExperimentListItem["decision"] }) {
  if (!decision) return <span className="faint">—</span>;
  const d = decision as Record<string, unknown>;
  const text = (k: string) => (typeof d[k] === "string" && d[k] ? (d[k] as string) : null);
  const status = text("status");
  const what = [text("component"), text("knob")].filter(Boolean).join(" ");
  const before = text("before");
  const after = text("after");
  const change = before || after ? `${before ?? "?"} → ${after ?? "?"}` : null;
  return (
    <span title={[what, change].filter(Boolean).join(": ")}>
      {status ? <StatusBadge status={status} /> : null} <span className="nowrap">{what}</span>
      {change ? <span className="muted mono"> {change}</span> : null}
    </span>
  );
}
