// While a run is live: how far the load has got (elapsed against wrk's -d), the command, and what the
// load generator has sent so far. wrk prints its result only when it ends; the result table replaces
// this panel then.
import { useQuery } from "@tanstack/react-query";
import { formatInt, isNum } from "@/lib/format";
import { formatClock } from "@/lib/time-axis";
import { type RunDetail, streamTailQueryOptions } from "../api";
import { plannedDurationS } from "../summaries";
import type { LiveTransport } from "../use-run-events";

interface Props {
  run: RunDetail;
  elapsedS: number | null;
  transport: LiveTransport;
}

export function LivePanel({ run, elapsedS, transport }: Props) {
  const planned = plannedDurationS(run.load_command);
  const load = run.streams.filter((s) => s.source === "wrk" || s.name === "load");
  const pending = run.status === "pending" || !run.started_at;
  const progress = planned && isNum(elapsedS) ? Math.min(1, Math.max(0, elapsedS / planned)) : null;
  return (
    <section className="card live-panel" aria-labelledby="live-title" data-testid="live-panel">
      <div className="card-header">
        <h2 id="live-title">{pending ? "Waiting for hosts" : "Load running"}</h2>
        <span className="muted" role="status">
          {transport === "sse"
            ? "streaming live"
            : transport === "polling"
              ? "live updates unavailable: refreshing every 2 s"
              : "connecting…"}
        </span>
      </div>
      <div className="card-body form">
        {pending ? (
          <p className="muted" style={{ margin: 0 }}>
            The run starts once the project's daemons have started their collectors (
            {formatInt(run.hosts.length)} joined so far).
          </p>
        ) : (
          <div className="live-progress">
            <span className="live-elapsed num" data-testid="elapsed">
              {formatClock(elapsedS)}
              {planned ? <span className="faint"> / {formatClock(planned)}</span> : null}
            </span>
            {progress !== null ? (
              <progress
                className="live-bar"
                max={1}
                value={progress}
                aria-label={`Load ${Math.round(progress * 100)}% through its planned ${formatClock(planned)}`}
              />
            ) : null}
          </div>
        )}
        {run.load_command ? (
          <pre className="codeblock live-command">
            <code>$ {run.load_command}</code>
          </pre>
        ) : null}
        {load[0] ? <OutputTail runId={run.id} streamId={load[0].id} received={load[0].lines} /> : null}
        {load.length ? (
          <ul className="live-streams">
            {load.map((s) => (
              <li key={s.id}>
                <span className="mono">{s.name}</span> <span className="num">{formatInt(s.lines)}</span> lines
                of output received
                {s.state === "open" ? "; wrk prints its result table when the load ends" : ""}
              </li>
            ))}
          </ul>
        ) : (
          <p className="faint" style={{ margin: 0 }}>
            No output from the load generator yet.
          </p>
        )}
      </div>
    </section>
  );
}

/** What the load command printed last, as it printed it (raw lines, rendered as text). */
function OutputTail({ runId, streamId, received }: { runId: string; streamId: number; received: number }) {
  const tail = useQuery(streamTailQueryOptions(runId, streamId, received));
  const lines = tail.data?.lines ?? [];
  if (!lines.length) return null;
  return (
    <figure className="live-output-figure" style={{ margin: 0 }}>
      <figcaption className="faint">Latest output of the load command</figcaption>
      <pre className="codeblock live-output" data-testid="live-output">
        <code>{lines.map((l) => l.text).join("\n")}</code>
      </pre>
    </figure>
  );
}
