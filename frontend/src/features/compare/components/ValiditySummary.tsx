// Runs whose numbers should not be trusted blindly (errors, partial streams, CPU steal, a saturated
// load generator): counted in one line, listed on demand, and marked on each cell they feed.
import { countOf } from "@/lib/format";
import type { CompareReply } from "../api";

export function ValiditySummary({ reply }: { reply: CompareReply }) {
  const { summary, flagged_runs, invalid_runs, include_invalid } = reply.validity;
  if (!summary.length) return null;
  const total = reply.columns.reduce((n, c) => n + c.runs.length, 0);
  return (
    <div className="alert alert-warn" role="status" data-testid="validity">
      <span className="alert-title">
        ⚠ {flagged_runs} of {countOf(total, "run")} flagged: their values are included and marked ⚠ on each
        cell
        {invalid_runs
          ? `; ${invalid_runs} invalid ${include_invalid ? "but counted on purpose" : "and left out of every median and verdict"}`
          : ""}
      </span>
      <details>
        <summary style={{ cursor: "pointer" }}>
          {summary.slice(0, 2).join("; ")}
          {summary.length > 2 ? `; and ${summary.length - 2} more` : ""}
        </summary>
        <ul>
          {summary.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      </details>
    </div>
  );
}
