// strace -c side by side: per syscall the calls (and seconds) of each experiment, with the change
// against the baseline, most changed first, e.g. `readv 305123 (2.28s) -> 691405 (3.53s)`.
import { useState } from "react";
import { formatInt, isNum } from "@/lib/format";
import type { CompareReply, SyscallTable } from "../api";
import { formatChange, formatValue } from "../format";
import { VerdictChip } from "./VerdictChip";

const FIRST_ROWS = 12;

function Table({ reply, table }: { reply: CompareReply; table: SyscallTable }) {
  const [all, setAll] = useState(false);
  const rows = [...table.rows].sort((a, b) => b.change_score - a.change_score);
  const visible = all ? rows : rows.slice(0, FIRST_ROWS);
  const others = reply.columns.filter((c) => !c.is_baseline);
  return (
    <div data-testid={`syscalls-${table.role}-${table.process}`}>
      <h3 className="cmp-subhead">
        {table.role} · {table.process}{" "}
        <span className="faint" style={{ fontWeight: 400 }}>
          strace -c, median over runs, sorted by change
        </span>
      </h3>
      <div className="table-wrap">
        <table
          className="table cmp-table cmp-syscalls"
          aria-label={`Syscalls of ${table.process} on ${table.role}`}
        >
          <thead>
            <tr>
              <th scope="col">Syscall</th>
              {reply.columns.map((c) => (
                <th key={c.id} scope="col" className="num">
                  {c.name}
                  {c.is_baseline ? <span className="faint"> (baseline)</span> : null}
                  <span className="cmp-sc-sub">calls (seconds) · µs/call</span>
                </th>
              ))}
              {others.length === 1 ? <th scope="col">Change</th> : null}
            </tr>
          </thead>
          <tbody>
            {visible.map((row) => (
              <tr key={row.syscall} title={Object.values(row.summary).join("\n")}>
                <th scope="row" className="mono">
                  {row.syscall}
                </th>
                {reply.columns.map((c) => {
                  const sc = row.cells[c.name];
                  if (!sc?.n) {
                    return (
                      <td key={c.id} className="num faint">
                        —
                      </td>
                    );
                  }
                  return (
                    <td key={c.id} className={`num${c.is_baseline ? " cmp-base" : ""}`}>
                      <span className="cmp-value">{formatInt(sc.calls)}</span>{" "}
                      <span className="muted">({isNum(sc.seconds) ? `${sc.seconds.toFixed(2)}s` : "—"})</span>
                      {!c.is_baseline && isNum(sc.calls_delta_pct) ? (
                        <span className="muted"> {formatChange(sc.calls_delta_pct)}</span>
                      ) : null}
                      <span className="cmp-sc-sub">
                        {isNum(sc.usecs_per_call) ? `${formatValue(sc.usecs_per_call, "")} µs/call` : ""}
                        {!c.is_baseline && sc.calls_verdict && sc.calls_verdict !== "no_data" ? (
                          <>
                            {" "}
                            <VerdictChip verdict={sc.calls_verdict} />
                          </>
                        ) : null}
                      </span>
                    </td>
                  );
                })}
                {others.length === 1 && others[0] ? (
                  <td className="mono" style={{ fontSize: 12, whiteSpace: "nowrap" }}>
                    {row.summary[others[0].name] ?? ""}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length > FIRST_ROWS ? (
        <button type="button" className="btn btn-sm btn-ghost" onClick={() => setAll(!all)}>
          {all ? `Show the top ${FIRST_ROWS}` : `Show all ${rows.length} syscalls`}
        </button>
      ) : null}
    </div>
  );
}

export function SyscallsSection({ reply }: { reply: CompareReply }) {
  if (!reply.syscalls.length) {
    return (
      <p className="muted">
        No strace -c summaries in these runs (collect with <code>--collect strace-c:PROCESS</code>).
      </p>
    );
  }
  return (
    <>
      {reply.syscalls.map((t) => (
        <Table key={`${t.role}:${t.process}`} reply={reply} table={t} />
      ))}
    </>
  );
}
