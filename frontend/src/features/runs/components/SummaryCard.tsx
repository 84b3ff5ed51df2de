// A parsed one-shot result (wrk summary, strace -c table, pidstat averages). The shapes belong to the
// parsers; this shows scalars as a list and anything nested as formatted JSON, so new kinds show up
// usefully before they get a dedicated view.
import { formatFixed, isNum } from "@/lib/format";
import type { SummaryRead } from "../api";

function scalar(v: unknown): string | null {
  if (isNum(v)) return Number.isInteger(v) ? formatFixed(v, 0) : formatFixed(v, 2);
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (v === null) return "—";
  return null;
}

export function SummaryCard({ summary }: { summary: SummaryRead }) {
  const entries = Object.entries(summary.data);
  const flat = entries.filter(([, v]) => scalar(v) !== null);
  const nested = entries.filter(([, v]) => scalar(v) === null);
  return (
    <section className="card" aria-label={`${summary.kind} summary`}>
      <div className="card-header">
        <h3>
          {summary.kind}
          {summary.role ? <span className="muted"> · {summary.role}</span> : null}
        </h3>
      </div>
      <div className="card-body form">
        {summary.warnings.length ? (
          <div className="alert alert-warn" role="note">
            <span className="alert-title">Warnings</span>
            <ul>
              {summary.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {flat.length ? (
          <dl className="props">
            {flat.map(([k, v]) => (
              <div key={k} style={{ display: "contents" }}>
                <dt>{k}</dt>
                <dd className={isNum(v) ? "num" : undefined} style={{ textAlign: "left" }}>
                  {scalar(v)}
                </dd>
              </div>
            ))}
          </dl>
        ) : null}
        {nested.map(([k, v]) => (
          <details key={k} className="facts">
            <summary>{k}</summary>
            <pre className="codeblock">{JSON.stringify(v, null, 2)}</pre>
          </details>
        ))}
      </div>
    </section>
  );
}
