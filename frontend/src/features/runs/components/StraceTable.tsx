// strace -c: where the traced process spent its system-call time. Sortable by any column, with a bar
// for the share of time so "writev dominates" reads at a glance.
import { useMemo, useState } from "react";
import { SortHeader } from "@/components/SortHeader";
import { countOf, formatFixed, formatInt, isNum } from "@/lib/format";
import type { SummaryRead } from "../api";
import { type SyscallSortKey, sortSyscalls, straceView } from "../summaries";

const COLUMNS: { key: SyscallSortKey; label: string; numeric: boolean }[] = [
  { key: "syscall", label: "syscall", numeric: false },
  { key: "pctTime", label: "% time", numeric: true },
  { key: "seconds", label: "seconds", numeric: true },
  { key: "usecsPerCall", label: "usecs/call", numeric: true },
  { key: "calls", label: "calls", numeric: true },
  { key: "errors", label: "errors", numeric: true },
];

export function StraceTable({ summary }: { summary: SummaryRead }) {
  const { rows, total } = useMemo(() => straceView(summary.data), [summary.data]);
  const [sort, setSort] = useState<{ key: SyscallSortKey; order: "asc" | "desc" }>({
    key: "seconds",
    order: "desc",
  });
  const sorted = useMemo(() => sortSyscalls(rows, sort.key, sort.order), [rows, sort]);
  const maxPct = Math.max(1, ...rows.map((r) => r.pctTime ?? 0));
  return (
    <section className="card" aria-labelledby={`strace-${summary.id}`} data-testid="strace-summary">
      <div className="card-header">
        <h3 id={`strace-${summary.id}`}>
          strace -c{summary.role ? <span className="muted"> · {summary.role}</span> : null}
        </h3>
        <span className="muted">
          {countOf(rows.length, "syscall")}
          {total && isNum(total.calls) ? ` · ${countOf(total.calls, "call")}` : ""}
          {total && isNum(total.seconds) ? ` · ${formatFixed(total.seconds, 3)} s` : ""}
        </span>
      </div>
      {summary.warnings.length ? (
        <div className="card-body">
          <div className="alert alert-warn" role="note">
            <span className="alert-title">Warnings</span>
            <ul>
              {summary.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          </div>
        </div>
      ) : null}
      {rows.length ? (
        <div className="table-wrap">
          <table className="table" aria-label="strace -c syscalls">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <SortHeader
                    key={c.key}
                    label={c.label}
                    sortKey={c.key}
                    current={sort.key}
                    order={sort.order}
                    numeric={c.numeric}
                    onSort={(key, order) => setSort({ key, order })}
                  />
                ))}
              </tr>
            </thead>
            <tbody>
              {sorted.map((r) => (
                <tr key={r.syscall} id={`syscall-${r.syscall}`}>
                  <td className="mono">{r.syscall}</td>
                  <td className="num pct-cell">
                    <span
                      className="pct-bar"
                      style={{ width: `${((r.pctTime ?? 0) / maxPct) * 100}%` }}
                      aria-hidden="true"
                    />
                    <span className="pct-value">{isNum(r.pctTime) ? formatFixed(r.pctTime, 2) : "—"}</span>
                  </td>
                  <td className="num">{isNum(r.seconds) ? formatFixed(r.seconds, 6) : "—"}</td>
                  <td className="num">{formatInt(r.usecsPerCall)}</td>
                  <td className="num">{formatInt(r.calls)}</td>
                  <td className={`num ${r.errors ? "delta-worse" : ""}`}>
                    {r.errors ? formatInt(r.errors) : ""}
                  </td>
                </tr>
              ))}
            </tbody>
            {total ? (
              <tfoot>
                <tr className="total-row">
                  <th scope="row">total</th>
                  <td className="num">{isNum(total.pctTime) ? formatFixed(total.pctTime, 2) : "100.00"}</td>
                  <td className="num">{isNum(total.seconds) ? formatFixed(total.seconds, 6) : "—"}</td>
                  <td className="num">{formatInt(total.usecsPerCall)}</td>
                  <td className="num">{formatInt(total.calls)}</td>
                  <td className="num">{total.errors ? formatInt(total.errors) : ""}</td>
                </tr>
              </tfoot>
            ) : null}
          </table>
        </div>
      ) : (
        <p className="muted card-body" style={{ margin: 0 }}>
          The table has no syscall rows.
        </p>
      )}
    </section>
  );
}
