// A parsed one-shot result (wrk summary, strace -c table, pidstat averages). The data shapes belong to
// the parsers; summaryBlocks lays out whatever arrives, so a new kind displays before it has a view.
import { formatFixed, isNum } from "@/lib/format";
import type { SummaryRead } from "../api";
import { type Scalar, summaryBlocks } from "../summary-view";

// Identifiers read better without thousands separators (pid 65534, not 65,534).
const ID_KEYS = new Set(["pid", "tid", "uid", "ppid", "id", "cpu", "queue"]);

function show(v: Scalar | undefined, key = "", decimals = false): string {
  if (isNum(v) && ID_KEYS.has(key)) return String(v);
  if (isNum(v) && Math.abs(v) < 0.01 && v !== 0) return v.toPrecision(2);
  if (isNum(v)) return Number.isInteger(v) && !decimals ? formatFixed(v, 0) : formatFixed(v, 2);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (v === null || v === undefined || v === "") return "—";
  return v;
}

export function SummaryCard({ summary }: { summary: SummaryRead }) {
  const blocks = summaryBlocks(summary.data);
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
        <div className="summary-blocks">
          {blocks.map((b) => {
            if (b.type === "fields") {
              return (
                <div key={b.key || "_"} className="summary-block">
                  {b.key ? <h4>{b.key}</h4> : null}
                  <dl className="props">
                    {b.fields.map(([k, v]) => (
                      <div key={k} style={{ display: "contents" }}>
                        <dt>{k}</dt>
                        <dd className={isNum(v) ? "tabular" : undefined}>{show(v, k)}</dd>
                      </div>
                    ))}
                  </dl>
                </div>
              );
            }
            if (b.type === "table") {
              // A column with any fraction shows every value with decimals, so digits line up.
              const fractional = new Set(
                b.columns.filter((c) => b.rows.some((r) => isNum(r[c]) && !Number.isInteger(r[c]))),
              );
              return (
                <div key={b.key} className="summary-block summary-block-wide">
                  <h4>{b.key}</h4>
                  <div className="table-wrap">
                    <table className="table">
                      <thead>
                        <tr>
                          {b.columns.map((c) => (
                            <th
                              key={c}
                              scope="col"
                              className={b.rows.some((r) => isNum(r[c])) ? "num" : undefined}
                            >
                              {c}
                            </th>
                          ))}
                        </tr>
                      </thead>
                      <tbody>
                        {b.rows.map((r, i) => (
                          // biome-ignore lint/suspicious/noArrayIndexKey: parsed rows have no identity of their own
                          <tr key={i}>
                            {b.columns.map((c) => (
                              <td key={c} className={isNum(r[c]) ? "num" : undefined}>
                                {show(r[c], c, fractional.has(c))}
                              </td>
                            ))}
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </div>
              );
            }
            return (
              <details key={b.key} className="facts summary-block-wide">
                <summary>{b.key}</summary>
                <pre className="codeblock">{JSON.stringify(b.value, null, 2)}</pre>
              </details>
            );
          })}
        </div>
      </div>
    </section>
  );
}
