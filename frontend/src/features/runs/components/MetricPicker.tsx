// The searchable list of every metric of the run (there may be hundreds): tick one to chart it, untick
// to remove it. Searching matches metric names, titles, units and process names or pids.
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { countOf, formatInt } from "@/lib/format";
import {
  filterMetrics,
  groupByRole,
  type MetricInfo,
  type MetricRef,
  metricId,
  metricTitle,
} from "../metric-state";

interface Props {
  available: MetricInfo[];
  selected: ReadonlySet<string>;
  onToggle: (ref: MetricRef) => void;
  onReset: () => void;
  onClose: () => void;
}

// Drawing the first few hundred rows is enough: the search narrows the rest.
const MAX_ROWS = 300;

export function MetricPicker({ available, selected, onToggle, onReset, onClose }: Props) {
  const [query, setQuery] = useState("");
  const searchRef = useRef<HTMLInputElement>(null);
  const listId = useId();
  const matches = useMemo(() => filterMetrics(available, query), [available, query]);
  const shown = matches.slice(0, MAX_ROWS);

  useEffect(() => searchRef.current?.focus(), []);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in the panel closes it
    <div
      className="metric-picker"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <div className="metric-picker-bar">
        <input
          ref={searchRef}
          className="input"
          type="search"
          placeholder="Search metrics: sy, cswch, nginx, 794, tx.bps…"
          aria-label="Search metrics"
          aria-controls={listId}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <span className="muted nowrap" role="status">
          {formatInt(matches.length)} of {countOf(available.length, "metric")}
        </span>
        <span className="grow" />
        <button type="button" className="btn btn-sm" onClick={onReset}>
          Reset to default charts
        </button>
        <button type="button" className="btn btn-sm" onClick={onClose}>
          Done
        </button>
      </div>
      <div className="metric-picker-list" id={listId}>
        {shown.length === 0 ? (
          <p className="muted" style={{ margin: 8 }}>
            No metric matches “{query}”.
          </p>
        ) : (
          groupByRole(shown).map(([role, metrics]) => (
            <fieldset key={role} className="metric-picker-role">
              <legend>{role}</legend>
              {metrics.map((m) => {
                const id = metricId(m);
                return (
                  <label key={id} className="metric-picker-row">
                    <input type="checkbox" checked={selected.has(id)} onChange={() => onToggle(m)} />
                    <span className="mono">
                      {m.source}.{m.metric}
                    </span>
                    <span className="muted">{metricTitle(m)}</span>
                    <span className="faint nowrap">
                      {m.unit ? `${m.unit} · ` : ""}
                      {m.series.length === 1 ? "1 series" : `${formatInt(m.series.length)} series`}
                    </span>
                  </label>
                );
              })}
            </fieldset>
          ))
        )}
        {matches.length > MAX_ROWS ? (
          <p className="faint" style={{ margin: 8 }}>
            {formatInt(matches.length - MAX_ROWS)} more: narrow the search.
          </p>
        ) : null}
      </div>
    </div>
  );
}
