// Placeholder for "Import results" (paste or drop wrk/vmstat/pidstat/strace output, preview, save as a
// run). The parsers-and-import feature replaces this page; the route and the links to it already exist.
import { Link, useParams } from "react-router";
import { CodeBlock } from "@/components/CodeBlock";
import { EmptyState } from "@/components/EmptyState";
import { agentCommands } from "@/lib/agent-commands";

export function ImportPage() {
  const { slug = "" } = useParams();
  const cmd = agentCommands(window.location.origin, slug);
  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Import results</h1>
          <div className="subtitle">Turn output you already have into a run of an experiment.</div>
        </div>
      </div>
      <section className="card">
        <EmptyState title="Importing from the browser is not available yet">
          <p>
            Soon you will paste or drop raw output here, see what was detected and parsed, and save it as a
            run. Until then, import from a terminal with the agent and a{" "}
            <Link to={`/p/${slug}/tokens`}>token</Link>:
          </p>
          <div style={{ width: "100%" }}>
            <CodeBlock code={`${cmd.download}\n${cmd.importFiles}`} label="Import with the agent" />
          </div>
        </EmptyState>
      </section>
    </main>
  );
}
