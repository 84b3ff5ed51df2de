// Where a piece of evidence lives on the run page: a syscall row of the strace -c table, a chart of a
// series (the run page charts the metrics named in ?m=), or nothing linkable (a sysctl, a log line).
import type { EvidenceItem, Finding } from "./api";

export function evidenceHref(e: EvidenceItem, runPath: string): string | null {
  const ref = e.ref as Record<string, unknown>;
  if (e.kind === "syscall" && typeof ref.syscall === "string") return `${runPath}#syscall-${ref.syscall}`;
  if (e.kind === "series" && typeof ref.role === "string" && typeof ref.source === "string") {
    const metric = `${ref.role}:${ref.source}.${String(ref.metric ?? "")}`;
    return `${runPath}?m=${encodeURIComponent(metric)}#charts`;
  }
  return null;
}

export function decisionRationale(f: Finding): string {
  const lines = f.evidence.map((e) => `- ${e.label}: ${e.value}`);
  return `Finding \`${f.rule}\`: ${f.title}\n\n${lines.join("\n")}\n\n${f.docs}`;
}

export const SEVERITY_TONE: Record<Finding["severity"], string> = {
  critical: "badge badge-bad",
  warning: "badge badge-warn",
  info: "badge badge-info",
};
