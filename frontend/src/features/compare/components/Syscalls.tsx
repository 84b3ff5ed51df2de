// strace -c side by side: per syscall the calls per request of each experiment (the window's calls
// divided by the requests the traced process read in it), with the change and verdict against the
// baseline, most changed first; the window's raw calls and seconds stay beside, smaller. Compared per
// request because an experiment that served more requests makes more calls without being worse.
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
          strace -c, median over runs, per request (requests: the process's recvfrom calls in the window),
          sorted by change
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
                  <span className="cmp-sc-sub">per request · calls (seconds) in the window</span>
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
                  const verdict = sc.calls_per_request_verdict;
                  return (
                    <td
                      key={c.id}
                      className={`num${c.is_baseline ? " cmp-base" : ""}`}
                      data-testid="syscall-cell"
                      title={sc.per_request_note ?? undefined}
                    >
                      {isNum(sc.calls_per_request) ? (
                        <span className="cmp-value">{formatValue(sc.calls_per_request, "")}/req</span>
                      ) : (
                        <span className="faint">requests unknown</span>
                      )}
                      {sc.per_request_note && isNum(sc.calls_per_request) ? (
                        <span className="faint" title={sc.per_request_note}>
                          {" "}
                          <span aria-hidden="true">⚠</span>
                          <span className="sr-only">{sc.per_request_note}</span>
                        </span>
                      ) : null}
                      {!c.is_baseline && isNum(sc.calls_per_request_delta_pct) ? (
                        <span className="muted"> {formatChange(sc.calls_per_request_delta_pct)}</span>
                      ) : null}
                      {!c.is_baseline && verdict && verdict !== "no_data" ? (
                        <>
                          {" "}
                          <VerdictChip
                            verdict={verdict}
                            title={sc.calls_per_request_undecided_reason ?? undefined}
                          />
                        </>
                      ) : null}
                      <span className="cmp-sc-sub">
                        {formatInt(sc.calls)} calls ({isNum(sc.seconds) ? `${sc.seconds.toFixed(2)}s` : "—"})
                        {isNum(sc.usecs_per_request)
                          ? ` · ${formatValue(sc.usecs_per_request, "")} µs/req`
                          : ""}
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
