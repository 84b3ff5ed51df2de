// The project's machines: who they are, whether they are online, and what each can collect.
// Collectors a host cannot run (no bcc for netqtop, no perf) are greyed out with the reason.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { CodeBlock } from "@/components/CodeBlock";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { SkeletonRows } from "@/components/Skeleton";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { agentCommands } from "@/lib/agent-commands";
import { countOf, isNum } from "@/lib/format";
import { useTitle } from "@/lib/use-title";
import { type Host, hostsQueryOptions } from "../api";
import { capabilities, keyFacts } from "../host-facts";

export function HostsPage() {
  const { slug = "" } = useParams();
  const hosts = useQuery(hostsQueryOptions(slug));
  useTitle("Hosts", slug);

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Hosts</h1>
          <div className="subtitle">Machines running a perflab agent for this project.</div>
        </div>
      </div>
      {hosts.error ? <ErrorBox error={hosts.error} onRetry={() => hosts.refetch()} /> : null}
      <section className="card">
        {hosts.data?.length === 0 ? (
          <NoHosts slug={slug} />
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Hosts">
              <thead>
                <tr>
                  <th scope="col">Host</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Facts</th>
                  <th scope="col">Collectors</th>
                  <th scope="col">Agent</th>
                </tr>
              </thead>
              {hosts.isPending ? (
                <SkeletonRows rows={3} columns={6} />
              ) : (
                <tbody>
                  {hosts.data?.map((h) => (
                    <HostRow key={h.id} host={h} />
                  ))}
                </tbody>
              )}
            </table>
          </div>
        )}
      </section>
    </main>
  );
}

function HostRow({ host }: { host: Host }) {
  const facts = keyFacts(host.facts);
  const caps = capabilities(host.capabilities, host.collectors);
  const hb = host.heartbeat;
  const dropped = isNum(hb.dropped_lines) ? hb.dropped_lines : 0;
  return (
    <tr style={{ verticalAlign: "top" }}>
      <td>
        <strong>{host.hostname}</strong>
        <div className="faint mono" style={{ fontSize: 11.5 }} title="agent id">
          {host.agent_id.slice(0, 12)}
        </div>
      </td>
      <td>
        <span className="tag">{host.role}</span>
      </td>
      <td>
        <StatusBadge status={host.online ? "online" : "offline"} />
        <div className="faint" style={{ fontSize: 12 }}>
          last seen <TimeAgo iso={host.last_seen_at} empty="never" />
        </div>
        {dropped > 0 ? (
          <div className="delta-worse" style={{ fontSize: 12 }}>
            {countOf(dropped, "line")} dropped
          </div>
        ) : null}
      </td>
      <td>
        {facts.length ? (
          <dl className="props" style={{ fontSize: 12.5 }}>
            {facts.map((f) => (
              <div key={f.label} style={{ display: "contents" }}>
                <dt>{f.label}</dt>
                <dd>{f.value}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <span className="faint">none reported</span>
        )}
        {Object.keys(host.facts).length ? (
          <details className="facts">
            <summary>All facts</summary>
            <pre className="codeblock">{JSON.stringify(host.facts, null, 2)}</pre>
          </details>
        ) : null}
      </td>
      <td>
        <ul
          className="inline-list"
          style={{ listStyle: "none", margin: 0, padding: 0 }}
          aria-label="Collectors"
        >
          {caps.map((c) =>
            c.available ? (
              <li key={c.name} className="tag mono">
                {c.name}
              </li>
            ) : (
              <li
                key={c.name}
                className="tag mono unavailable"
                title={c.reason ? `unavailable: ${c.reason}` : "unavailable"}
                aria-disabled="true"
              >
                {c.name}
                <span className="sr-only"> (unavailable{c.reason ? `: ${c.reason}` : ""})</span>
              </li>
            ),
          )}
          {caps.length === 0 ? <li className="faint">none</li> : null}
        </ul>
        {caps.some((c) => !c.available) ? (
          <div className="faint" style={{ fontSize: 12 }}>
            Struck through: unavailable on this host (hover for why).
          </div>
        ) : null}
      </td>
      <td className="muted">{host.agent_version || "—"}</td>
    </tr>
  );
}

function NoHosts({ slug }: { slug: string }) {
  const cmd = agentCommands(window.location.origin, slug);
  return (
    <EmptyState title="No hosts yet — start an agent daemon on each machine to observe">
      <p>
        <Link to={`/p/${slug}/tokens`}>Create an agent token</Link>, then on each machine (proxy, upstream…):
      </p>
      <div style={{ width: "100%" }}>
        <CodeBlock code={`${cmd.download}\n${cmd.daemon}`} label="Start an agent daemon" />
      </div>
      <p>
        The host shows up here on its first hello, with its kernel, CPUs, cgroup limit and the collectors it
        can run.
      </p>
    </EmptyState>
  );
}
