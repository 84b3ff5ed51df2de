// pidstat's Average lines: per process CPU, context switches and memory over the whole capture,
// busiest first.
import { useMemo } from "react";
import { formatFixed, formatInt, isNum } from "@/lib/format";
import type { SummaryRead } from "../api";
import { pidstatView } from "../summaries";

export function PidstatTable({ summary }: { summary: SummaryRead }) {
  const { columns, rows } = useMemo(() => pidstatView(summary.data), [summary.data]);
  const hasTid = rows.some((r) => r.tid !== null);
  return (
    <section className="card" aria-labelledby={`pidstat-${summary.id}`} data-testid="pidstat-summary">
      <div className="card-header">
        <h3 id={`pidstat-${summary.id}`}>
          pidstat averages{summary.role ? <span className="muted"> · {summary.role}</span> : null}
        </h3>
        <span className="muted">{formatInt(rows.length)} processes</span>
      </div>
      {rows.length ? (
        <div className="table-wrap">
          <table className="table" aria-label="pidstat averages per process">
            <thead>
              <tr>
                <th scope="col">Command</th>
                <th scope="col" className="num">
                  PID
                </th>
                {hasTid ? (
                  <th scope="col" className="num">
                    TID
                  </th>
                ) : null}
                {columns.map((c) => (
                  <th key={c.key} scope="col" className="num">
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the same pid may appear per thread
                <tr key={`${r.pid}-${r.tid}-${i}`}>
                  <td className="mono">{r.command}</td>
                  <td className="num">{r.pid ?? "—"}</td>
                  {hasTid ? <td className="num">{r.tid ?? ""}</td> : null}
                  {columns.map((c) => {
                    const v = r.values[c.key];
                    return (
                      <td key={c.key} className="num">
                        {isNum(v) ? (c.unit === "%" ? formatFixed(v, 2) : formatInt(v)) : "—"}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted card-body" style={{ margin: 0 }}>
          No Average lines were parsed.
        </p>
      )}
    </section>
  );
}
