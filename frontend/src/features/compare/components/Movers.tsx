// One ranked list across results, telemetry, syscalls and network queues: what moved most against
// the baseline, significant changes first.
import type { CompareReply } from "../api";
import { VerdictChip } from "./VerdictChip";

const SECTION_WORD: Record<string, string> = {
  results: "result",
  telemetry: "telemetry",
  syscalls: "syscall",
  netqtop: "network",
};

export function MoversSection({ reply }: { reply: CompareReply }) {
  if (!reply.top_movers.length) return <p className="muted">Nothing moved against the baseline.</p>;
  return (
    <ol className="cmp-movers" data-testid="top-movers">
      {reply.top_movers.map((m) => (
        <li key={`${m.section}:${m.key}:${m.experiment}`}>
          <span className="tag">{SECTION_WORD[m.section] ?? m.section}</span>
          <strong>{m.experiment}</strong> <span className="cmp-mover-text">{m.text || m.label}</span>{" "}
          <VerdictChip verdict={m.verdict} />
          {!m.significant ? <span className="faint"> not significant</span> : null}
        </li>
      ))}
    </ol>
  );
}
