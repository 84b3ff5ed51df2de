// The empty project page: how to get the first run in, by agent or by importing existing output.
import { Link } from "react-router";
import { CodeBlock } from "@/components/CodeBlock";
import { agentCommands, TOKEN_PLACEHOLDER } from "@/lib/agent-commands";

export function AgentQuickstart({ slug }: { slug: string }) {
  const cmd = agentCommands(window.location.origin, slug);
  return (
    <div className="empty" data-testid="agent-quickstart">
      <div className="empty-title">No experiments yet — start an agent or import results</div>
      <p>
        Each run of a load test becomes a run of an experiment. Agents on your machines capture what every
        machine does while the load runs; nothing needs installing beyond <code>python3</code> (3.6 or newer).
      </p>
      <ol className="steps">
        <li>
          <p>
            <Link to={`/p/${slug}/tokens`}>Create an agent token</Link> for this project. It is shown once;
            use it in place of <code>{TOKEN_PLACEHOLDER}</code> below.
          </p>
        </li>
        <li>
          <p>
            On each machine to observe (the proxy, the upstream…), download the agent and start its daemon:
          </p>
          <CodeBlock label="Download the agent" code={cmd.download} />
          <div style={{ height: 6 }} />
          <CodeBlock label="Start the daemon" code={cmd.daemon} />
        </li>
        <li>
          <p>
            On the load generator, run the load test through the agent; the run appears here as it happens:
          </p>
          <CodeBlock label="Run a load test" code={cmd.run} />
        </li>
      </ol>
      <p>
        Already have output from <code>wrk</code>, <code>vmstat</code>, <code>pidstat</code> or{" "}
        <code>strace -c</code>? <Link to={`/p/${slug}/import`}>Import results</Link> instead.
      </p>
    </div>
  );
}
