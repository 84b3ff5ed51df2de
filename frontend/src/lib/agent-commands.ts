// The commands that start capturing a project's runs, shown in empty states and next to a new token,
// so a user can paste them as they are. Kept in one place so both show the same flags.

export const TOKEN_PLACEHOLDER = "plb_YOUR_TOKEN";

export interface AgentCommands {
  download: string;
  daemon: string;
  run: string;
  importFiles: string;
}

// Single quotes keep a shell from touching the value; a quote inside is closed, escaped, reopened.
function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function agentCommands(
  origin: string,
  project: string,
  token: string = TOKEN_PLACEHOLDER,
): AgentCommands {
  const server = origin.replace(/\/+$/, "");
  const common = `--server ${shellQuote(server)} --token ${shellQuote(token)}`;
  return {
    download: `curl -fsSLo perflab-agent.pyz ${server}/agent/perflab-agent.pyz`,
    daemon: `python3 perflab-agent.pyz daemon ${common} --role proxy \\\n    --collect vmstat --collect pidstat:nginx`,
    run:
      `python3 perflab-agent.pyz run ${common} --project ${shellQuote(project)} \\\n` +
      `    --experiment baseline -- wrk -c 100 -t 4 -d 30s --latency http://proxy:8080/`,
    importFiles:
      `python3 perflab-agent.pyz import ${common} --project ${shellQuote(project)} \\\n` +
      `    --experiment baseline wrk.txt vmstat.txt`,
  };
}
