// Search and filters of the experiment history. Every control writes to the URL; the search box
// waits for a pause in typing so that each keystroke is not a request and a history entry.
import { useEffect, useState } from "react";
import {
  DECISION_FILTERS,
  type DecisionFilter,
  EXPERIMENT_STATUSES,
  type ExperimentStatus,
  type HistoryState,
} from "../history-state";

interface Props {
  state: HistoryState;
  knownTags: string[];
  onChange: (change: Partial<HistoryState>, opts?: { replace?: boolean }) => void;
  onClear: () => void;
  filtered: boolean;
}

export function HistoryToolbar({ state, knownTags, onChange, onClear, filtered }: Props) {
  const [q, setQ] = useState(state.q);

  // The URL wins when it changes from outside (back button, a pasted link).
  useEffect(() => setQ(state.q), [state.q]);

  useEffect(() => {
    if (q.trim() === state.q) return;
    const t = setTimeout(() => onChange({ q }, { replace: true }), 300);
    return () => clearTimeout(t);
  }, [q, state.q, onChange]);

  const addableTags = knownTags.filter((t) => !state.tags.includes(t));

  return (
    <search className="toolbar" aria-label="Filter experiments">
      <div className="field grow" style={{ minWidth: 200 }}>
        <label htmlFor="history-q" className="field-label">
          Search
        </label>
        <input
          id="history-q"
          className="input"
          type="search"
          placeholder="Name or hypothesis"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") onChange({ q });
          }}
        />
      </div>
      <div className="field">
        <label htmlFor="history-status" className="field-label">
          Status
        </label>
        <select
          id="history-status"
          className="select"
          value={state.status}
          onChange={(e) => onChange({ status: e.target.value as ExperimentStatus | "" })}
        >
          <option value="">Any</option>
          {EXPERIMENT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="history-decision" className="field-label">
          Decision
        </label>
        <select
          id="history-decision"
          className="select"
          value={state.decision}
          onChange={(e) => onChange({ decision: e.target.value as DecisionFilter | "" })}
        >
          <option value="">Any</option>
          {DECISION_FILTERS.map((d) => (
            <option key={d} value={d}>
              {d === "none" ? "none yet" : d}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="history-tag" className="field-label">
          Tag
        </label>
        <select
          id="history-tag"
          className="select"
          value=""
          disabled={addableTags.length === 0}
          onChange={(e) => e.target.value && onChange({ tags: [...state.tags, e.target.value] })}
        >
          <option value="">{knownTags.length ? "Add tag filter…" : "No tags yet"}</option>
          {addableTags.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="history-from" className="field-label">
          Created from
        </label>
        <input
          id="history-from"
          className="input"
          type="date"
          value={state.from}
          max={state.to || undefined}
          onChange={(e) => onChange({ from: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="history-to" className="field-label">
          to
        </label>
        <input
          id="history-to"
          className="input"
          type="date"
          value={state.to}
          min={state.from || undefined}
          onChange={(e) => onChange({ to: e.target.value })}
        />
      </div>
      <label className="checkbox-row" style={{ alignSelf: "flex-end" }}>
        <input
          type="checkbox"
          checked={state.archived}
          onChange={(e) => onChange({ archived: e.target.checked })}
        />
        Show archived
      </label>
      {filtered ? (
        <button type="button" className="btn btn-ghost" onClick={onClear}>
          Clear filters
        </button>
      ) : null}
      {state.tags.length ? (
        <ul
          className="inline-list"
          style={{ flexBasis: "100%", listStyle: "none", margin: 0, padding: 0 }}
          aria-label="Active tag filters"
        >
          {state.tags.map((t) => (
            <li key={t}>
              <button
                type="button"
                className="tag"
                aria-label={`Remove tag filter ${t}`}
                onClick={() => onChange({ tags: state.tags.filter((x) => x !== t) })}
              >
                {t} ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </search>
  );
}
