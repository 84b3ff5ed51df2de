// Host telemetry per role: the overlays the reader chose (defaults: vmstat sy/us/in/cs and pidstat
// %CPU per command) and the steady-state table (mean over the run without warm-up and cool-down).
import { useState } from "react";
import { countOf } from "@/lib/format";
import type { CompareReply, CompareSource, TelemetryRow } from "../api";
import type { OverlayChoice } from "../view-state";
import { OverlayLegend, OverlayPanel } from "./Overlays";
import { ExperimentHeaders } from "./ResultTable";
import { ValueCell } from "./ValueCell";

interface Props {
  reply: CompareReply;
  source: CompareSource;
  overlays: OverlayChoice[];
  /** Which charts may be picked (a public link may chart only what was shared). */
  allowed: OverlayChoice[] | null;
  onOverlays?: (next: OverlayChoice[]) => void;
}

export function TelemetrySection({ reply, source, overlays, allowed, onOverlays }: Props) {
  const [showRuns, setShowRuns] = useState(false);
  const roles = [
    ...new Set([...reply.telemetry.map((t) => t.role), ...reply.overlay_metrics.map((m) => m.role)]),
  ];
  if (!roles.length) {
    return (
      <p className="muted">
        No host telemetry in these runs. Start agents with <code>--collect vmstat</code> on each machine.
      </p>
    );
  }
  const order = reply.columns.map((c) => c.name);
  const isAllowed = (role: string, metric: string) =>
    allowed === null || allowed.some((a) => a.role === role && a.metric === metric);
  return (
    <>
      <OverlayLegend reply={reply} showRuns={showRuns} onShowRuns={setShowRuns} />
      {roles.map((role) => {
        const t = reply.telemetry.find((x) => x.role === role);
        const metrics = reply.overlay_metrics.filter((m) => m.role === role && isAllowed(role, m.key));
        const shown = overlays.filter((o) => o.role === role && metrics.some((m) => m.key === o.metric));
        return (
          <div key={role} data-testid={`telemetry-${role}`}>
            <h3 className="cmp-subhead">
              {role}
              {t?.hosts.length ? (
                <span className="faint" style={{ fontWeight: 400 }}>
                  {" "}
                  · {t.hosts.join(", ")}
                </span>
              ) : null}
            </h3>
            {onOverlays && metrics.length ? (
              <details className="cmp-metric-picker">
                <summary>
                  {shown.length} of {countOf(metrics.length, "chart")} shown: choose
                </summary>
                <fieldset>
                  <legend className="sr-only">Charts for {role}</legend>
                  {metrics.map((m) => {
                    const on = shown.some((o) => o.metric === m.key);
                    return (
                      <label key={m.key} className="checkbox-row">
                        <input
                          type="checkbox"
                          checked={on}
                          onChange={() =>
                            onOverlays(
                              on
                                ? overlays.filter((o) => !(o.role === role && o.metric === m.key))
                                : [...overlays, { role, metric: m.key }],
                            )
                          }
                        />
                        {m.label} <span className="faint mono">{m.key}</span>
                      </label>
                    );
                  })}
                </fieldset>
              </details>
            ) : null}
            {shown.length ? (
              <div className="cmp-charts" style={{ marginTop: 8 }}>
                {shown.map((o) => {
                  const m = metrics.find((x) => x.key === o.metric);
                  return (
                    <OverlayPanel
                      key={o.metric}
                      source={source}
                      role={role}
                      metric={o.metric}
                      label={m?.label ?? o.metric}
                      unit={m?.unit ?? ""}
                      experimentOrder={order}
                      syncId="compare-overlays"
                      showRuns={showRuns}
                    />
                  );
                })}
              </div>
            ) : (
              <p className="muted">No chart chosen for {role}.</p>
            )}
            {t?.rows.length ? (
              <>
                <h4 className="cmp-subhead" style={{ fontSize: 12.5 }}>
                  Steady state{" "}
                  <span className="faint" style={{ fontWeight: 400 }}>
                    mean over each run without warm-up and cool-down, median over runs
                  </span>
                </h4>
                <SteadyStateTable reply={reply} rows={t.rows} label={`Steady state on ${role}`} />
              </>
            ) : null}
          </div>
        );
      })}
    </>
  );
}

export function SteadyStateTable({
  reply,
  rows,
  label,
}: {
  reply: CompareReply;
  rows: TelemetryRow[];
  label: string;
}) {
  return (
    <div className="table-wrap">
      <table className="table cmp-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <ExperimentHeaders reply={reply} />
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">
                {row.label}
                <span className="cmp-dir mono">
                  {row.key}
                  {row.unit ? ` (${row.unit})` : ""}
                </span>
              </th>
              {reply.columns.map((c) => (
                <ValueCell
                  key={c.id}
                  cell={row.cells[c.name]}
                  unit={row.unit}
                  direction={row.direction}
                  isBaseline={c.is_baseline}
                  confidence={reply.method.confidence}
                  baselineRuns={row.cells[reply.baseline]?.n}
                  compact
                />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
