import { describe, expect, it } from "vitest";
import { agentCommands, TOKEN_PLACEHOLDER } from "./agent-commands";

describe("agentCommands", () => {
  it("points the agent at this server and project", () => {
    const c = agentCommands("http://dash:8000/", "nginx-proxy");
    expect(c.download).toBe("curl -fsSLo perflab-agent.pyz http://dash:8000/agent/perflab-agent.pyz");
    expect(c.daemon).toContain(`daemon --server http://dash:8000 --token ${TOKEN_PLACEHOLDER} --role proxy`);
    expect(c.daemon).toContain("--collect vmstat");
    expect(c.run).toContain("--project nginx-proxy");
    expect(c.run).toContain("-- wrk ");
  });

  it("fills in a real token and quotes what a shell would mangle", () => {
    const c = agentCommands("http://127.0.0.1:8000", "it's", "plb_abc123");
    expect(c.daemon).toContain("--token plb_abc123");
    expect(c.run).toContain(`--project 'it'\\''s'`);
  });
});
