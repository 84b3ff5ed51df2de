// The noise of the baseline's setup: from its repeated runs, per metric (and host role), the smallest
// change that n runs a side detect, so a reader knows how many runs the next experiment needs.
import type { SetupNoise } from "../api";
import { formatValue } from "../format";

export function SetupNoiseSection({ noise }: { noise: SetupNoise | null | undefined }) {
  if (!noise?.rows.length) return null;
  const results = noise.rows.filter((r) => r.section === "results");
  const rps = results.find((r) => r.key === "wrk.requests_per_sec");
  const counts = [...new Set(noise.rows.flatMap((r) => Object.keys(r.detectable_by_runs).map(Number)))].sort(
    (a, b) => a - b,
  );
  return (
    <details className="cmp-method" data-testid="setup-noise">
      <summary>
        Noise of this setup ({noise.experiment}, {noise.runs} runs)
        {rps && rps.detectable_pct != null
          ? `: detects Requests/sec changes of ${rps.detectable_pct.toFixed(1)}% or more with ${rps.n} runs a side`
          : ""}
      </summary>
      <table className="table" style={{ marginTop: 6 }}>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">Role</th>
            <th scope="col" className="num">
              Median
            </th>
            <th scope="col" className="num">
              Run to run
            </th>
            {counts.map((n) => (
              <th key={n} scope="col" className="num">
                {n} runs
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {noise.rows.map((r) => (
            <tr key={`${r.role ?? ""}/${r.key}`}>
              <th scope="row">{r.label}</th>
              <td>{r.role ?? ""}</td>
              <td className="num">{formatValue(r.median, r.unit)}</td>
              <td className="num">{r.spread_pct != null ? `±${r.spread_pct.toFixed(1)}%` : "—"}</td>
              {counts.map((n) => {
                const d = r.detectable_by_runs[String(n)];
                return (
                  <td key={n} className="num">
                    {d != null ? `${d.toFixed(1)}%` : "—"}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="faint" style={{ margin: "4px 0 0" }}>
        The smallest change each run count a side detects with 80% power at a 5% false-positive rate, from the
        spread of {noise.experiment}&apos;s runs.
      </p>
    </details>
  );
}
