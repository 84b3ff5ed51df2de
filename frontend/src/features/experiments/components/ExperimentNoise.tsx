// The noise of this experiment's setup, from its repeated runs: "this setup detects Requests/sec
// changes of 9.8% or more with 3 runs a side", and with 5 and 10 runs, so the next experiment is
// planned with enough runs to see the change it looks for.
import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "@/api/client";

// The figures a tuning decision is made on; the compare page lists every metric and host role.
const HEADLINE = ["wrk.requests_per_sec", "wrk.latency_percentiles_ms.50", "wrk.latency_percentiles_ms.99"];

export function ExperimentNoise({ slug, experimentId }: { slug: string; experimentId: number }) {
  const noise = useQuery({
    queryKey: ["experiments", "noise", slug, experimentId],
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{slug}/noise", {
          params: { path: { slug }, query: { experiment: String(experimentId) } },
          signal,
        }),
      ),
  });
  const rows = (noise.data?.rows ?? []).filter((r) => HEADLINE.includes(r.key) && r.detectable_pct != null);
  if (!rows.length) return null;
  const more = (by: Record<string, number | null>, n: number) =>
    Object.entries(by)
      .filter(([k, v]) => Number(k) !== n && v != null)
      .map(([k, v]) => `${k} runs: ${v?.toFixed(1)}%`)
      .join(", ");
  return (
    <section className="card card-body" aria-label="Noise of this setup" data-testid="experiment-noise">
      <strong>Noise of this setup</strong>
      <ul style={{ margin: "6px 0 0", paddingLeft: 18 }}>
        {rows.map((r) => (
          <li key={r.key}>
            {r.label}: detects changes of {r.detectable_pct?.toFixed(1)}% or more with {r.n} runs a side
            <span className="muted"> ({more(r.detectable_by_runs, r.n)})</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
