// Slot for the run's time-series charts (vmstat, pidstat, netqtop per host). The live-streaming feature
// fills it with TimeSeriesChart from components/charts once the API serves series; the page layout
// already reserves its place so nothing moves when it arrives.
import type { RunDetail } from "../api";

export function RunCharts({ run }: { run: RunDetail }) {
  const sources = [...new Set(run.streams.filter((s) => s.samples > 0).map((s) => `${s.role}/${s.source}`))];
  return (
    <section className="card" aria-labelledby="charts-title" data-testid="run-charts">
      <div className="card-header">
        <h2 id="charts-title">Charts</h2>
      </div>
      <div className="card-body chart-slot">
        {sources.length ? (
          <p className="muted" style={{ margin: 0 }}>
            Parsed series from {sources.join(", ")} will be charted here.
          </p>
        ) : (
          <p className="muted" style={{ margin: 0 }}>
            No parsed series in this run yet. Start agents with <code>--collect vmstat</code> or{" "}
            <code>--collect pidstat:PROCESS</code> to chart what each machine did during the load.
          </p>
        )}
      </div>
    </section>
  );
}
