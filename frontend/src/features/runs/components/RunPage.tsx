// One run: whether it is whole (status and reasons, up front), the load's result, per-host charts,
// who took part, what each tool sent, and the parsed summaries. While the run is live the page follows
// it through server-sent events (polling every 2 s if they fail) and shows the elapsed time.
import "../runs.css";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { Link, Navigate, useLocation, useNavigate, useParams } from "react-router";
import { scopedNotesQueryOptions } from "@/api/notes";
import { DeleteButton } from "@/components/DeleteButton";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { ExcludeRunButton } from "@/components/ExcludeRunButton";
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
import { useProjectRole } from "@/lib/project-role";
import { useSlots } from "@/lib/slots";
import { formatClock } from "@/lib/time-axis";
import { useUrlTimeRange } from "@/lib/time-range";
import { useNow } from "@/lib/use-now";
import { useTitle } from "@/lib/use-title";
import { isLive, type RunDetail, runQueryOptions, type SummaryRead } from "../api";
import { type LiveTransport, useRunEvents } from "../use-run-events";
import { LivePanel } from "./LivePanel";
import { PidstatTable } from "./PidstatTable";
import { RunAttachments } from "./RunAttachments";
import { RunCharts } from "./RunCharts";
import { noteAnnotations, RunNotes } from "./RunNotes";
import { RunRoles } from "./RunRoles";
import { StraceTable } from "./StraceTable";
import { SummaryCard } from "./SummaryCard";
import { WrkSummary } from "./WrkSummary";

export function RunPage() {
  const { slug = "", runId = "" } = useParams();
  const [polling, setPolling] = useState(false);
  const run = useQuery(runQueryOptions(runId, polling));
  const live = !!run.data && isLive(run.data.status);
  const transport = useRunEvents(runId, live);
  useEffect(() => setPolling(transport === "polling"), [transport]);
  const { RunFindings } = useSlots();
  const location = useLocation();
  useTitle(
    run.data ? run.data.label || `run ${run.data.id.slice(0, 8)}` : undefined,
    run.data?.experiment_name,
    slug,
  );

  // A run opened under another project's address (an edited or pasted link) moves to its own project,
  // so the header, breadcrumbs and links all speak of the project the run belongs to.
  if (run.data && run.data.project_slug !== slug)
    return (
      <Navigate
        to={{ pathname: `/p/${run.data.project_slug}/runs/${run.data.id}`, search: location.search }}
        replace
      />
    );

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
      {run.data && RunFindings ? (
        <RunFindings
          runId={runId}
          slug={slug}
          experimentId={run.data.experiment_id}
          experimentName={run.data.experiment_name}
          live={live}
        />
      ) : null}
      {run.data ? <RunBody run={run.data} transport={transport} /> : null}
    </main>
  );
}

const HEADLINE: { key: string; label: string; fmt: (v: number) => string }[] = [
  { key: "requests_per_sec", label: "Requests/sec", fmt: formatCompact },
  { key: "latency_p50_ms", label: "p50", fmt: formatMs },
  { key: "latency_p99_ms", label: "p99", fmt: formatMs },
  { key: "errors", label: "Errors", fmt: formatInt },
];

function SummaryView({ summary }: { summary: SummaryRead }) {
  if (summary.kind === "wrk") return <WrkSummary summary={summary} />;
  if (summary.kind === "strace-c") return <StraceTable summary={summary} />;
  if (summary.kind === "pidstat-averages") return <PidstatTable summary={summary} />;
  return <SummaryCard summary={summary} />;
}

function RunBody({ run, transport }: { run: RunDetail; transport: LiveTransport }) {
  const live = isLive(run.status);
  const now = useNow(1000, live);
  const duration = live
    ? run.started_at
      ? (now - Date.parse(run.started_at)) / 1000
      : null
    : secondsBetween(run.started_at, run.ended_at);
  const wrk = run.summaries.filter((s) => s.kind === "wrk");
  const others = run.summaries.filter((s) => s.kind !== "wrk" && s.kind !== "host-facts");
  // Facts an import read from cgroup files, nproc, lscpu: shown with the hosts, like an agent's.
  const importedFacts = run.summaries.filter((s) => s.kind === "host-facts");
  const partial = run.status === "partial" || run.status === "failed";
  const notes = useQuery(scopedNotesQueryOptions(run.project_slug, { runId: run.id }));
  const annotations = useMemo(() => noteAnnotations(notes.data ?? []), [notes.data]);
  const [range] = useUrlTimeRange();
  const { canWrite } = useProjectRole(run.project_slug);
  const navigate = useNavigate();
  const name = run.label || run.id.slice(0, 8);
  return (
    <>
      <section className="card">
        <div className="card-body form">
          <div className="page-header">
            <div>
              <h1 className={run.excluded ? "run-excluded" : undefined}>
                {run.experiment_name} <span className="muted run-name">· {name}</span>
              </h1>
              <div className="subtitle mono" style={{ fontSize: 12 }}>
                {run.id}
              </div>
            </div>
            <div className="actions">
              <span className="actions" data-testid="run-status">
                <StatusBadge status={run.status} />
                {live && isNum(duration) ? (
                  <span className="num muted" title="Elapsed since the load started">
                    {formatClock(duration)} elapsed
                  </span>
                ) : null}
              </span>
              <Link className="btn btn-sm" to={`/p/${run.project_slug}/runs/${run.id}/profiles`}>
                Flame graphs
              </Link>
              {canWrite ? (
                <>
                  <ExcludeRunButton runId={run.id} excluded={run.excluded ?? false} name={`run ${name}`} />
                  <DeleteButton
                    kind="run"
                    id={run.id}
                    name={`run ${name}`}
                    onDeleted={() => navigate(`/p/${run.project_slug}/experiments/${run.experiment_id}`)}
                  />
                </>
              ) : null}
            </div>
          </div>
          {run.excluded ? (
            <div className="alert alert-warn" role="note" data-testid="run-excluded">
              <span className="alert-title">Excluded from statistics</span>
              <span>
                {run.excluded_reason}. This run is left out of medians, verdicts, trends and findings.
              </span>
            </div>
          ) : null}
          {run.status_reasons.length ? (
            <div
              className={`alert ${run.status === "failed" ? "alert-error" : "alert-warn"} run-reasons`}
              role="note"
              data-testid="run-reasons"
            >
              <span className="alert-title">
                {run.status === "partial"
                  ? "Partial run: some data is missing"
                  : partial
                    ? `Run ${run.status}`
                    : run.source === "import"
                      ? "Imported with warnings"
                      : "Notes on this run"}
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
            <dt>Roles</dt>
            <dd>
              <RunRoles run={run} canWrite={canWrite} />
            </dd>
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

      {live ? <LivePanel run={run} elapsedS={duration} transport={transport} /> : null}
      {wrk.map((s) => (
        <WrkSummary key={s.id} summary={s} />
      ))}

      <div id="charts">
        <RunCharts run={run} poll={transport === "polling"} annotations={annotations} />
      </div>

      <section aria-labelledby="summaries-title" className="form">
        <h2 id="summaries-title">Summaries</h2>
        {others.length ? (
          <div className="summary-grid">
            {others.map((s) => (
              <SummaryView key={s.id} summary={s} />
            ))}
          </div>
        ) : (
          <div className="card">
            <EmptyState
              title={
                live
                  ? "Summaries appear when the run ends"
                  : wrk.length
                    ? "No other summaries in this run"
                    : "No summaries in this run"
              }
            >
              <p>
                wrk's result, <code>strace -c</code> tables and pidstat averages are parsed when their streams
                close.
              </p>
            </EmptyState>
          </div>
        )}
      </section>

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
          ) : importedFacts.length ? (
            <div className="table-wrap">
              <table className="table" data-testid="imported-host-facts">
                <thead>
                  <tr>
                    <th scope="col">Role</th>
                    <th scope="col">Facts read from the imported files</th>
                  </tr>
                </thead>
                <tbody>
                  {importedFacts.map((s) => (
                    <tr key={s.id}>
                      <td>
                        <span className="tag">{s.role}</span>
                      </td>
                      <td className="mono">{factsText(s.data)}</td>
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
          {run.parse_lag.chunks > 0 ? (
            // Parse workers (PERFLAB_PARSE_WORKERS) trail the lines received: say by how much.
            <p className="faint" data-testid="parse-lag">
              Parsing {run.parse_lag.chunks} {run.parse_lag.chunks === 1 ? "batch" : "batches"} behind (oldest
              received {run.parse_lag.seconds.toFixed(1)} s ago)
            </p>
          ) : null}
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

      <RunAttachments runId={run.id} />

      <RunNotes
        slug={run.project_slug}
        runId={run.id}
        experimentId={run.experiment_id}
        notes={notes}
        range={range}
      />

      <p className="faint" style={{ margin: 0 }}>
        {run.source === "import" ? "Imported" : "Created"} <TimeAgo iso={run.created_at} />
      </p>
    </>
  );
}

/** "cpus_online 2, cpus_allowed 1, cgroup_cpuset 1 (from cpuset.cpus, lscpu.txt)" */
function factsText(data: Record<string, unknown>): string {
  const sources = Array.isArray(data.sources) ? ` (from ${data.sources.join(", ")})` : "";
  const shown = Object.entries(data)
    .filter(([k, v]) => k !== "sources" && v !== null && v !== undefined)
    .map(([k, v]) => `${k} ${String(v)}`);
  return shown.join(", ") + sources;
}
