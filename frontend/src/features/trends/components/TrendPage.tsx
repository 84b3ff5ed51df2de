// One metric across the project's experiments in time order: every run as a point, the median per
// experiment, change points, decisions and notes as markers. The chosen metric and the change-point
// sensitivity are in the URL (?metric=...&alpha=...), so a trend can be pasted into a review.
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { TrendChart } from "@/components/charts";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { Skeleton } from "@/components/Skeleton";
import { countOf, formatCompact, formatDeltaPct } from "@/lib/format";
import { useTitle } from "@/lib/use-title";
import { type Trend, trendMetricsQueryOptions, trendQueryOptions } from "../api";
import {
  ALPHA_CHOICES,
  chosenAlpha,
  chosenMetric,
  compareHref,
  groupMetrics,
  withAlpha,
  withMetric,
} from "../trend-state";

export function TrendPage() {
  const { slug = "" } = useParams();
  useTitle("Trend", slug);
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const metrics = useQuery(trendMetricsQueryOptions(slug));
  const metric = chosenMetric(params, metrics.data);
  const alpha = chosenAlpha(params);
  const archived = params.get("archived") === "1";
  const trend = useQuery(trendQueryOptions(slug, metric, alpha, archived));
  const groups = useMemo(() => groupMetrics(metrics.data ?? []), [metrics.data]);
  const known = metrics.data?.some((m) => m.key === metric) ?? false;

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Trend</h1>
          <div className="subtitle">
            A metric across experiments in time order: dots are runs, the line is each experiment's median,
            dashed lines are change points.
          </div>
        </div>
        <div className="actions">
          <label className="field" style={{ minWidth: 280 }}>
            <span className="field-label">Metric</span>
            <select
              className="input"
              aria-label="Metric"
              value={metric}
              disabled={!metrics.data?.length}
              onChange={(e) => setParams(withMetric(params, e.target.value))}
            >
              {!known && metric ? <option value={metric}>{metric}</option> : null}
              {groups.map((g) => (
                <optgroup key={g.label} label={g.label}>
                  {g.metrics.map((m) => (
                    <option key={m.key} value={m.key}>
                      {m.label} · {countOf(m.runs, "run")}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </label>
          <label className="field" style={{ minWidth: 220 }}>
            <span className="field-label">Change-point sensitivity</span>
            <select
              className="input"
              aria-label="Change-point sensitivity"
              value={alpha}
              onChange={(e) => setParams(withAlpha(params, Number(e.target.value)))}
            >
              {ALPHA_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          <label className="checkbox-row">
            <input
              type="checkbox"
              checked={archived}
              onChange={(e) => {
                const next = new URLSearchParams(params);
                if (e.target.checked) next.set("archived", "1");
                else next.delete("archived");
                setParams(next);
              }}
            />
            Show archived
          </label>
        </div>
      </div>

      {metrics.error ? <ErrorBox error={metrics.error} /> : null}
      {trend.error ? <ErrorBox error={trend.error} title="Could not load the trend" /> : null}
      {metrics.data?.length === 0 ? (
        <section className="card">
          <EmptyState title="Nothing to chart yet">
            <p>
              Trends appear once runs have results: <Link to={`/p/${slug}/import`}>import</Link> or record
              some.
            </p>
          </EmptyState>
        </section>
      ) : null}
      {trend.data ? (
        <TrendView slug={slug} trend={trend.data} onOpenRun={(id) => navigate(`/p/${slug}/runs/${id}`)} />
      ) : trend.isPending && metric ? (
        <section className="card">
          <Skeleton width="100%" height={280} />
        </section>
      ) : null}
    </main>
  );
}

function TrendView({
  slug,
  trend,
  onOpenRun,
}: {
  slug: string;
  trend: Trend;
  onOpenRun: (id: string) => void;
}) {
  const navigate = useNavigate();
  const exps = trend.experiments;
  const chart = useMemo(() => {
    const runs = exps.flatMap((e, i) =>
      e.runs.map((r, j) => ({
        // Spread the runs of one experiment a little, so repeats don't hide each other.
        x: i + (e.runs.length > 1 ? (j / (e.runs.length - 1) - 0.5) * 0.3 : 0),
        y: r.value,
        id: r.run_id,
        validity: r.validity,
        label: `${e.experiment} · ${r.label || r.run_id.slice(0, 8)} · ${formatCompact(r.value)}${r.validity !== "ok" ? ` (${r.validity})` : ""}`,
      })),
    );
    const medians = exps.map((e, i) => ({ x: i, y: e.median ?? null, label: e.experiment }));
    const changes = trend.change_points.map((c) => ({ x: c.index, label: formatDeltaPct(c.delta_pct) }));
    const markers = exps.flatMap((e, i) =>
      e.markers.map((m) => ({ id: `${m.kind}-${m.id}`, x: i, kind: m.kind, label: `${m.kind}: ${m.text}` })),
    );
    return { runs, medians, changes, markers };
  }, [exps, trend.change_points]);

  if (exps.length === 0) {
    return (
      <section className="card">
        <EmptyState title="No values for this metric">
          <p>No run of this project has {trend.label} yet.</p>
        </EmptyState>
      </section>
    );
  }

  const onMedianClick = (i: number) => {
    const before = exps[i - 1];
    const after = exps[i];
    if (before && after) navigate(compareHref(slug, before.experiment_id, after.experiment_id));
  };

  return (
    <>
      <section className="card" aria-label="Trend chart">
        <div className="card-header">
          <h2>
            {trend.label} {trend.unit ? <span className="faint">({trend.unit})</span> : null}
          </h2>
        </div>
        <div className="card-body">
          <TrendChart
            {...chart}
            unit={trend.unit}
            ariaLabel={`${trend.label} across experiments`}
            onRunClick={onOpenRun}
            onMedianClick={onMedianClick}
          />
        </div>
      </section>

      <section className="card" aria-label="Change points">
        <div className="card-header">
          <h2>Change points</h2>
        </div>
        <div className="card-body">
          {trend.assessment !== "changed" ? (
            <p className="muted" style={{ margin: 0 }} data-testid="change-point-summary">
              {trend.summary}
            </p>
          ) : (
            <ul className="change-points" style={{ margin: 0 }}>
              {trend.change_points.map((c) => (
                <li key={c.experiment_id} data-testid="change-point">
                  <strong>{c.experiment}</strong>: {formatCompact(c.before_median)} →{" "}
                  {formatCompact(c.after_median)} ({formatDeltaPct(c.delta_pct)}, p{" "}
                  {c.p_value <= 0.005 ? "≤ 0.005" : `= ${c.p_value.toFixed(3)}`}) ·{" "}
                  <Link to={compareHref(slug, c.previous_experiment_id, c.experiment_id)}>
                    compare {c.previous_experiment} → {c.experiment}
                  </Link>
                </li>
              ))}
            </ul>
          )}
          <p className="field-hint" style={{ marginBottom: 0 }}>
            Method: a t statistic on the mean log value of every experiment's runs, maximised over splits with
            at least {trend.method.min_size} experiments a side, its critical value from simulated flat
            histories; binary segmentation. A history that did not move shows a change point with probability
            about {trend.method.alpha * 100}%. A step shows once {trend.method.min_size} experiments follow it
            {trend.detectable_step_pct !== null && trend.detectable_step_pct !== undefined
              ? `; here, steps of about ±${trend.detectable_step_pct.toFixed(0)}% or more show 4 times in 5`
              : ""}
            .
          </p>
        </div>
      </section>

      <section className="card" aria-label="Experiments">
        <div className="table-wrap">
          <table className="table" aria-label="Trend history">
            <thead>
              <tr>
                <th scope="col">Experiment</th>
                <th scope="col" style={{ textAlign: "right" }}>
                  Median
                </th>
                <th scope="col" style={{ textAlign: "right" }}>
                  Runs
                </th>
                <th scope="col">Range</th>
                <th scope="col">Decisions and notes</th>
              </tr>
            </thead>
            <tbody>
              {[...exps].reverse().map((e) => (
                <tr key={e.experiment_id} className={e.change_point ? "row-change-point" : undefined}>
                  <td>
                    <Link to={`/p/${slug}/experiments/${e.experiment_id}`}>{e.experiment}</Link>
                    {e.change_point ? (
                      <span
                        className="tag"
                        style={{ marginLeft: 6 }}
                        title="A change point: the level moved here"
                      >
                        change
                      </span>
                    ) : null}
                  </td>
                  <td className="mono" style={{ textAlign: "right" }}>
                    {formatCompact(e.median)}
                  </td>
                  <td style={{ textAlign: "right" }}>
                    {e.runs.map((r) => (
                      <Link
                        key={r.run_id}
                        to={`/p/${slug}/runs/${r.run_id}`}
                        title={`${r.label || r.run_id} · ${formatCompact(r.value)}`}
                        className={r.validity === "invalid" ? "muted" : undefined}
                        style={{
                          marginLeft: 4,
                          textDecoration: r.validity === "invalid" ? "line-through" : undefined,
                        }}
                      >
                        ●
                      </Link>
                    ))}{" "}
                    {e.n}
                    {e.n_invalid ? <span className="muted"> (+{e.n_invalid} invalid)</span> : null}
                  </td>
                  <td className="mono faint">
                    {e.min !== null && e.max !== null
                      ? `${formatCompact(e.min)}–${formatCompact(e.max)}`
                      : "—"}
                  </td>
                  <td>
                    {e.markers.map((m) => (
                      <div key={`${m.kind}-${m.id}`}>
                        <span className="tag">{m.kind}</span> {m.text}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
