// wrk's result the way engineers paste it into a write-up: throughput, the latency distribution, and
// the errors that make a run suspect (non-2xx responses, socket errors) flagged rather than hidden.
import {
  countOf,
  formatBytes,
  formatDuration,
  formatFixed,
  formatInt,
  formatMs,
  formatPercent,
  isNum,
} from "@/lib/format";
import type { SummaryRead } from "../api";
import { STANDARD_PERCENTILES, wrkView } from "../summaries";
import { plainWarning } from "../warnings";

export function WrkSummary({ summary }: { summary: SummaryRead }) {
  const w = wrkView(summary.data);
  const socket = w.socketErrors;
  const socketTotal = [socket.connect, socket.read, socket.write, socket.timeout].reduce<number>(
    (n, v) => n + (v ?? 0),
    0,
  );
  const pct = new Map(w.percentiles);
  const order = [
    ...STANDARD_PERCENTILES,
    ...w.percentiles.map(([p]) => p).filter((p) => !STANDARD_PERCENTILES.includes(p)),
  ];
  return (
    <section className="card" aria-labelledby={`wrk-${summary.id}`} data-testid="wrk-summary">
      <div className="card-header">
        <h3 id={`wrk-${summary.id}`}>
          wrk result{summary.role ? <span className="muted"> · {summary.role}</span> : null}
        </h3>
        <span className="muted nowrap">
          {[
            isNum(w.threads) ? countOf(w.threads, "thread") : null,
            isNum(w.connections) ? countOf(w.connections, "connection") : null,
            isNum(w.durationS) ? formatDuration(w.durationS) : null,
          ]
            .filter(Boolean)
            .join(" · ")}
          {w.url ? (
            <>
              {" · "}
              <code>{w.url}</code>
            </>
          ) : null}
        </span>
      </div>
      <div className="card-body form">
        {summary.warnings.length ? (
          <div className="alert alert-warn" role="note" data-testid="wrk-notes">
            <span className="alert-title">Notes on this output</span>
            <ul>
              {summary.warnings.map((x) => (
                <li key={x} title={x}>
                  {plainWarning(x)}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        <div className="wrk-grid">
          <table className="table table-compact" aria-label="Throughput">
            <tbody>
              <tr>
                <th scope="row">Requests/sec</th>
                <td className="num strong" data-testid="wrk-rps">
                  {formatFixed(w.rps, 2)}
                </td>
              </tr>
              <tr>
                <th scope="row">Transfer/sec</th>
                <td className="num">
                  {isNum(w.transferPerSec) ? `${formatBytes(w.transferPerSec)}/s` : "—"}
                </td>
              </tr>
              <tr>
                <th scope="row">Requests</th>
                <td className="num">{formatInt(w.requests)}</td>
              </tr>
              <tr>
                <th scope="row">Read</th>
                <td className="num">{formatBytes(w.bytesRead)}</td>
              </tr>
              <tr>
                <th scope="row">Non-2xx/3xx</th>
                <td className={`num ${w.non2xx ? "delta-worse strong" : ""}`}>
                  {formatInt(w.non2xx)}
                  {w.non2xx ? <span className="sr-only"> (errors)</span> : null}
                </td>
              </tr>
              <tr>
                <th scope="row">Socket errors</th>
                <td className={`num ${socketTotal ? "delta-worse strong" : ""}`}>
                  {socketTotal
                    ? `connect ${formatInt(socket.connect)}, read ${formatInt(socket.read)}, write ${formatInt(socket.write)}, timeout ${formatInt(socket.timeout)}`
                    : formatInt(socketTotal)}
                </td>
              </tr>
            </tbody>
          </table>
          <table className="table table-compact" aria-label="Latency distribution">
            <thead>
              <tr>
                <th scope="col">Latency</th>
                <th scope="col" className="num">
                  ms
                </th>
              </tr>
            </thead>
            <tbody>
              {order.map((p) => (
                <tr key={p}>
                  <th scope="row">p{p}</th>
                  <td className="num">{formatMs(pct.get(p))}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table className="table table-compact" aria-label="Thread stats">
            <thead>
              <tr>
                <th scope="col">Thread stats</th>
                <th scope="col" className="num">
                  Avg
                </th>
                <th scope="col" className="num">
                  Stdev
                </th>
                <th scope="col" className="num">
                  Max
                </th>
                <th scope="col" className="num">
                  +/- Stdev
                </th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Latency</th>
                <td className="num">{formatMs(w.latency.avg)}</td>
                <td className="num">{formatMs(w.latency.stdev)}</td>
                <td className="num">{formatMs(w.latency.max)}</td>
                <td className="num">{formatPercent(w.latency.withinStdevPct, 2)}</td>
              </tr>
              <tr>
                <th scope="row">Req/sec per thread</th>
                <td className="num">{formatInt(w.perThread.avg)}</td>
                <td className="num">{formatInt(w.perThread.stdev)}</td>
                <td className="num">{formatInt(w.perThread.max)}</td>
                <td className="num">{formatPercent(w.perThread.withinStdevPct, 2)}</td>
              </tr>
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
