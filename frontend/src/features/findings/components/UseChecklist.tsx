// The USE method for one run: each resource's utilisation, saturation and errors, as this run's data
// shows them; a rule that fired there; or what to collect so the check can run next time.
import { useQuery } from "@tanstack/react-query";
import { ErrorBox } from "@/components/ErrorBox";
import { runUseQueryOptions, type UseCheck } from "../api";

const TYPES = ["utilisation", "saturation", "errors"] as const;
const BADGE: Record<UseCheck["status"], string> = {
  finding: "badge badge-warn",
  silent: "badge badge-good",
  missing: "badge",
  "n/a": "badge",
};
const LABEL: Record<UseCheck["status"], string> = {
  finding: "finding",
  silent: "checked, silent",
  missing: "not checked",
  "n/a": "n/a",
};

export function UseChecklist({ runId, live = false }: { runId: string; live?: boolean }) {
  const q = useQuery(runUseQueryOptions(runId, live));
  if (q.error)
    return <ErrorBox error={q.error} title="Could not read the USE checklist" onRetry={() => q.refetch()} />;
  if (!q.data) return null;
  const checks = q.data.checks;
  const ran = checks.filter((c) => c.status === "finding" || c.status === "silent").length;
  const applicable = checks.filter((c) => c.status !== "n/a").length;
  return (
    <details className="use-checklist" data-testid="use-checklist">
      <summary>
        USE checklist{" "}
        <span className="faint">
          {ran} of {applicable} checks ran
        </span>
      </summary>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Resource</th>
              {TYPES.map((t) => (
                <th key={t} scope="col">
                  {t}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {q.data.resources.map((r) => (
              <tr key={r}>
                <th scope="row">{r}</th>
                {TYPES.map((t) => {
                  const c = checks.find((x) => x.resource === r && x.type === t);
                  return <td key={t}>{c ? <Cell check={c} /> : null}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function Cell({ check }: { check: UseCheck }) {
  return (
    <div data-testid={`use-${check.resource}-${check.type}`} data-status={check.status}>
      <span className={BADGE[check.status]}>{LABEL[check.status]}</span>
      {check.fired.length ? <span className="mono"> {check.fired.join(", ")}</span> : null}
      {check.value ? <div className="faint use-value">{check.value}</div> : null}
      {check.hint ? <div className="muted use-hint">{check.hint}</div> : null}
    </div>
  );
}
