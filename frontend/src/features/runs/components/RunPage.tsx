// One run: whether it is whole (status and reasons), who took part, what each tool sent, and the
// parsed results. Charts live in the RunCharts slot.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonBlock } from "@/components/Skeleton";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import {
  formatCompact,
  formatDateTime,
  formatDuration,
  formatInt,
  formatMs,
  isNum,
  secondsBetween,
} from "@/lib/format";
import { isLive, type RunDetail, runQueryOptions } from "../api";
import { RunCharts } from "./RunCharts";
import { SummaryCard } from "./SummaryCard";

export function RunPage() {
  const { slug = "", runId = "" } = useParams();
  const run = useQuery(runQueryOptions(runId));

  return (
    <main className="page">
      <nav aria-label="Breadcrumb" className="muted">
        <Link to={`/p/${slug}`}>Experiments</Link> <span className="crumb-sep">/</span>{" "}
        {run.data ? (
          <Link to={`/p/${slug}/experiments/${run.data.experiment_id}`}>{run.data.experiment_name}</Link>
        ) : (
          "…"
        )}{" "}
        <span className="crumb-sep">/</span> {run.data?.label || runId.slice(0, 8)}
      </nav>
      {run.error ? <ErrorBox error={run.error} onRetry={() => run.refetch()} /> : null}
      {run.isPending ? (
        <section className="card card-body">
          <SkeletonBlock lines={6} />
        </section>
      ) : null}
      {run.data ? <RunBody run={run.data} /> : null}
    </main>
  );
}

const HEADLINE: { key: string; label: string; fmt: (v: number) => string }[] = [
  { key: "requests_per_sec", label: "Requests/sec", fmt: formatCompact },
  { key: "latency_p50_ms", label: "p50", fmt: formatMs },
  { key: "latency_p99_ms", label: "p99", fmt: formatMs },
  { key: "errors", label: "Errors", fmt: formatInt },
];

function RunBody({ run }: { run: RunDetail }) {
  const live = isLive(run.status);
  const duration = secondsBetween(
    run.started_at,
    run.ended_at ?? (live && run.started_at ? new Date().toISOString() : null),
  );
  return (
    <>
      <section className="card">
        <div className="card-body form">
          <div className="page-header">
            <div>
              <h1>
                {run.experiment_name} <span className="muted">· {run.label || run.id.slice(0, 8)}</span>
              </h1>
              <div className="subtitle mono" style={{ fontSize: 12 }}>
                {run.id}
              </div>
            </div>
            <div className="actions">
              <StatusBadge status={run.status} />
              {live ? <span className="muted">updating every 2 s</span> : null}
            </div>
          </div>
          {run.status_reasons.length ? (
            <div className={`alert ${run.status === "failed" ? "alert-error" : "alert-warn"}`} role="note">
              <span className="alert-title">
                {run.status === "partial" ? "Partial run: some data is missing" : `Run ${run.status}`}
              </span>
              <ul>
                {run.status_reasons.map((r) => (
                  <li key={r}>{r}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <dl className="props">
            <dt>Started</dt>
            <dd>
              {run.started_at ? formatDateTime(run.started_at) : <span className="faint">not yet</span>}
            </dd>
            <dt>Duration</dt>
            <dd className="num" style={{ textAlign: "left" }}>
              {duration !== null && duration > 0 ? formatDuration(duration) : "—"}
            </dd>
            <dt>Load command</dt>
            <dd>{run.load_command ? <code>{run.load_command}</code> : <span className="faint">—</span>}</dd>
            <dt>Exit code</dt>
            <dd className={run.exit_code ? "delta-worse" : undefined}>{run.exit_code ?? "—"}</dd>
            <dt>Source</dt>
            <dd>{run.source}</dd>
          </dl>
        </div>
      </section>

      <section className="stat-grid" aria-label="Headline numbers">
        {HEADLINE.map((h) => {
          const v = run.headline[h.key];
          return (
            <div className="stat" key={h.key}>
              <div className="stat-label">{h.label}</div>
              <div className="stat-value">{isNum(v) ? h.fmt(v) : "—"}</div>
            </div>
          );
        })}
      </section>

      <RunCharts run={run} />

      <div className="grid-2">
        <section className="card" aria-labelledby="hosts-title">
          <div className="card-header">
            <h2 id="hosts-title">Hosts</h2>
          </div>
          {run.hosts.length ? (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Host</th>
                    <th scope="col">Role</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {run.hosts.map((h) => (
                    <tr key={h.host_id}>
                      <td>{h.hostname}</td>
                      <td>
                        <span className="tag">{h.role}</span>
                      </td>
                      <td>
                        <StatusBadge status={h.state} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <EmptyState title="No host joined this run">
              <p>
                {run.source === "import"
                  ? "Imported runs have no agents."
                  : "Daemons join runs of their project while they are online; start one on each machine to observe."}
              </p>
            </EmptyState>
          )}
        </section>

        <section className="card" aria-labelledby="streams-title">
          <div className="card-header">
            <h2 id="streams-title">Streams</h2>
          </div>
          {run.streams.length ? (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Host</th>
                    <th scope="col">Role</th>
                    <th scope="col">Stream</th>
                    <th scope="col" className="num">
                      Lines
                    </th>
                    <th scope="col" className="num">
                      Samples
                    </th>
                    <th scope="col" className="num">
                      Dropped
                    </th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {run.streams.map((s) => (
                    <tr key={s.id}>
                      <td>{s.host ?? <span className="faint">—</span>}</td>
                      <td>{s.role}</td>
                      <td className="mono" title={s.source}>
                        {s.name}
                        {s.error ? <div className="delta-worse">{s.error}</div> : null}
                      </td>
                      <td className="num">{formatInt(s.lines)}</td>
                      <td className="num">{formatInt(s.samples)}</td>
                      <td className={`num ${s.dropped ? "delta-worse" : ""}`}>
                        {formatInt(s.dropped)}
                        {s.dropped ? <span className="sr-only"> lines dropped</span> : null}
                      </td>
                      <td>
                        <StatusBadge status={s.state} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <EmptyState title="No streams yet">
              <p>Streams appear as soon as a tool on a host sends its first lines.</p>
            </EmptyState>
          )}
        </section>
      </div>

      <section aria-labelledby="summaries-title" className="form">
        <h2 id="summaries-title">Summaries</h2>
        {run.summaries.length ? (
          <div className="form">
            {[...run.summaries]
              // The load generator's result is what the run is about: show it first.
              .sort((a, b) => Number(b.kind === "wrk") - Number(a.kind === "wrk"))
              .map((s) => (
                <SummaryCard key={s.id} summary={s} />
              ))}
          </div>
        ) : (
          <div className="card">
            <EmptyState title={live ? "Summaries appear when the run ends" : "No summaries in this run"}>
              <p>
                wrk's result, <code>strace -c</code> tables and pidstat averages are parsed when their streams
                close.
              </p>
            </EmptyState>
          </div>
        )}
      </section>
      <p className="faint" style={{ margin: 0 }}>
        Created <TimeAgo iso={run.created_at} />
      </p>
    </>
  );
}
