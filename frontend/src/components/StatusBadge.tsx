// Status of a run, an experiment or a stream as a coloured badge that also says the word.

type Tone = "good" | "bad" | "warn" | "info" | "neutral" | "live";

const TONES: Record<string, Tone> = {
  // runs
  pending: "neutral",
  running: "live",
  complete: "good",
  partial: "warn",
  failed: "bad",
  // experiments
  planned: "neutral",
  done: "good",
  archived: "neutral",
  // streams and run hosts
  open: "live",
  closed: "good",
  joined: "info",
  collecting: "live",
  // decisions
  proposed: "info",
  adopted: "good",
  rejected: "neutral",
  inconclusive: "warn",
  // tokens, hosts
  active: "good",
  revoked: "neutral",
  online: "good",
  offline: "neutral",
};

// Running things read "live": that is what the user cares about (the page updates as it goes).
const LABELS: Record<string, string> = { running: "live", open: "live", collecting: "live" };

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const tone = TONES[status] ?? "neutral";
  const cls =
    tone === "live" ? "badge badge-info badge-live" : tone === "neutral" ? "badge" : `badge badge-${tone}`;
  return (
    <span className={cls} title={status}>
      {label ?? LABELS[status] ?? status}
    </span>
  );
}
