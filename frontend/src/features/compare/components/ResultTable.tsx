// THE table: one row per load-test metric, one column per experiment (baseline first), each value
// with its change against the baseline and a noise verdict, and the method stated under it.
import { Link, useParams } from "react-router";
import type { CompareReply, Direction } from "../api";
import { ValueCell } from "./ValueCell";

const DIRECTION_HINT: Record<Direction, string> = {
  higher_is_better: "higher is better",
  lower_is_better: "lower is better",
  neutral: "",
};

interface Props {
  reply: CompareReply;
  /** Set the baseline from a column header; absent where the baseline is frozen. */
  onBaseline?: (name: string) => void;
}

/** The first flame graph of an experiment's runs, if any run has one. */
function firstProfile(column: CompareReply["columns"][number] | undefined): string | undefined {
  return column?.runs.flatMap((r) => r.profile_ids ?? [])[0];
}

export function ExperimentHeaders({ reply, onBaseline }: Props) {
  // Only inside a project (not on a public share page) can the reader open the profiles.
  const { slug } = useParams();
  const baseProfile = firstProfile(reply.columns.find((c) => c.is_baseline) ?? reply.columns[0]);
  return (
    <>
      {reply.columns.map((c) => {
        const flagged = c.runs.filter((r) => r.validity === "flagged").length;
        const profile = firstProfile(c);
        return (
          <th key={c.id} scope="col" className="num cmp-exp">
            <span className="cmp-exp-name">{c.name}</span>
            <span className="cmp-exp-sub">
              {c.is_baseline ? (
                <span className="badge badge-info">baseline</span>
              ) : onBaseline ? (
                <button
                  type="button"
                  className="btn btn-sm btn-ghost"
                  style={{ height: 20, padding: "0 6px", fontSize: 11 }}
                  onClick={() => onBaseline(c.name)}
                  aria-label={`Use ${c.name} as the baseline`}
                >
                  set as baseline
                </button>
              ) : null}{" "}
              {c.runs.length} run{c.runs.length === 1 ? "" : "s"}
              {flagged ? <span className="cmp-flag"> · ⚠ {flagged} flagged</span> : null}
              {c.runs
                .filter((r) => r.validity === "invalid")
                .map((r) => (
                  <span
                    key={r.id}
                    className="cmp-invalid-run"
                    data-testid="invalid-run"
                    title={(r.invalid_reasons ?? []).join("\n")}
                  >
                    {r.included ? r.label : <s>{r.label}</s>} invalid
                    {r.included ? " (counted)" : ""}: {(r.invalid_reasons ?? [])[0]}
                  </span>
                ))}
              {slug && profile && baseProfile && !c.is_baseline ? (
                <>
                  {" · "}
                  <Link
                    to={`/p/${encodeURIComponent(slug)}/profiles/diff?base=${baseProfile}&other=${profile}`}
                    aria-label={`Flame graph diff of ${c.name} against the baseline`}
                  >
                    flame graph diff
                  </Link>
                </>
              ) : null}
            </span>
          </th>
        );
      })}
    </>
  );
}

export function ResultTable({ reply, onBaseline }: Props) {
  const m = reply.method;
  return (
    <section className="card" aria-labelledby="results-title" data-testid="result-table">
      <div className="card-header">
        <h2 id="results-title" style={{ fontSize: 15, margin: 0 }}>
          Results <span className="cmp-section-hint">wrk, median over the runs of each experiment</span>
        </h2>
      </div>
      <div className="table-wrap">
        <table className="table cmp-table" aria-label="Results">
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <ExperimentHeaders reply={reply} onBaseline={onBaseline} />
            </tr>
          </thead>
          <tbody>
            {reply.results.map((row) => (
              <tr key={row.key} data-metric={row.key}>
                <th scope="row">
                  {row.label}
                  {DIRECTION_HINT[row.direction] ? (
                    <span className="cmp-dir">{DIRECTION_HINT[row.direction]}</span>
                  ) : null}
                </th>
                {reply.columns.map((c) => (
                  <ValueCell
                    key={c.id}
                    cell={row.cells[c.name]}
                    unit={row.unit}
                    direction={row.direction}
                    isBaseline={c.is_baseline}
                    confidence={m.confidence}
                    baselineRuns={row.cells[reply.baseline]?.n}
                    runLabels={c.runs.filter((r) => r.included !== false).map((r) => r.label)}
                  />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details className="cmp-method">
        <summary>
          Method: {m.name} at a {Math.round((1 - m.confidence) * 100)}% false-positive rate; changes against{" "}
          <strong>{reply.baseline}</strong>. <em>Not decided</em> when these runs cannot tell the change from
          noise (the cell says what would decide it); <em>equivalent</em> when it is provably smaller than the
          smallest meaningful change.
        </summary>
        <p style={{ margin: "6px 0 0" }}>{m.detail}</p>
      </details>
    </section>
  );
}
