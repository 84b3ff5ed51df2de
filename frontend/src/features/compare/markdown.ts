// "Copy as Markdown": the result table the way engineers paste it into a pull request, with a link
// back. Built in the browser from the reply already on screen, so the copy happens inside the click
// (clipboard access needs the user's gesture) and works on a public share page too.
import { formatDeltaPct, isNum } from "@/lib/format";
import type { CompareReply } from "./api";
import { formatValue, verdictLabel } from "./format";

/** Table-safe and inert wherever the Markdown ends up: pipes escaped, HTML brackets as entities, one line. */
export function mdEscape(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\r\n]+/g, " ");
}

type MarkdownInput = Pick<
  CompareReply,
  "baseline" | "experiments" | "columns" | "results" | "method" | "validity" | "changes"
> &
  Partial<Pick<CompareReply, "syscalls">>;

// Syscalls most changed first; a write-up needs the few that moved, the page has the rest.
const MD_SYSCALL_ROWS = 8;

/** Per strace -c table: calls per request of the most changed syscalls, the window's raw calls beside. */
function syscallsMarkdown(reply: MarkdownInput): string {
  let out = "";
  for (const table of reply.syscalls ?? []) {
    out +=
      `\nSyscalls per request, ${mdEscape(table.role)} · ${mdEscape(table.process)} ` +
      "(strace -c; calls/req, the window's calls in brackets):\n\n";
    out += `| syscall | ${reply.experiments.map(mdEscape).join(" | ")} |\n`;
    out += `|---${"|---:".repeat(reply.experiments.length)}|\n`;
    const rows = [...table.rows].sort((a, b) => b.change_score - a.change_score);
    for (const row of rows.slice(0, MD_SYSCALL_ROWS)) {
      const cells = [mdEscape(row.syscall)];
      for (const n of reply.experiments) {
        const sc = row.cells[n];
        if (!sc?.n) {
          cells.push("-");
          continue;
        }
        const raw = `${formatValue(sc.calls, "calls")} calls`;
        if (!isNum(sc.calls_per_request)) {
          cells.push(`requests unknown (${raw})`);
          continue;
        }
        let text = `${formatValue(sc.calls_per_request, "")} calls/req (${raw})`;
        const verdict = sc.calls_per_request_verdict;
        if (n !== reply.baseline && verdict) {
          if (isNum(sc.calls_per_request_delta_pct))
            text += ` ${formatDeltaPct(sc.calls_per_request_delta_pct)}`;
          text += ` ${MD_VERDICTS[verdict] ?? verdictLabel(verdict)}`;
        }
        cells.push(text);
      }
      out += `| ${cells.join(" | ")} |\n`;
    }
  }
  return out;
}

// Verdicts read at a glance in a pull request.
const MD_VERDICTS: Partial<Record<string, string>> = {
  better: "✅ better",
  worse: "❌ worse",
  equivalent: "≈ equivalent",
  not_decided: "? not decided",
  invalid: "no valid run",
};

/** `direct (baseline, 3 runs)`; invalid runs left out are said, not hidden. */
export function columnHeader(reply: Pick<CompareReply, "baseline" | "columns">, name: string): string {
  const column = reply.columns.find((c) => c.name === name);
  const counted = column?.runs.filter((r) => r.included !== false).length ?? 0;
  const left = (column?.runs.length ?? 0) - counted;
  const parts = name === reply.baseline ? ["baseline"] : [];
  parts.push(`${counted} run${counted === 1 ? "" : "s"}`);
  if (left) parts.push(`${left} invalid left out`);
  return `${name} (${parts.join(", ")})`;
}

export function comparisonMarkdown(reply: MarkdownInput, link?: string | null): string {
  const names = reply.experiments;
  const head = ["metric", ...names.map((n) => mdEscape(columnHeader(reply, n)))];
  const lines = [`| ${head.join(" | ")} |`, `|---${"|---:".repeat(names.length)}|`];
  for (const row of reply.results) {
    const cells = [mdEscape(row.label)];
    for (const n of names) {
      const c = row.cells[n];
      if (!c) {
        cells.push("-");
        continue;
      }
      if (c.verdict === "invalid") {
        cells.push(MD_VERDICTS.invalid ?? "no valid run");
        continue;
      }
      let text = c.median === null || c.median === undefined ? "-" : formatValue(c.median, row.unit);
      if (n !== reply.baseline && c.median !== null && c.median !== undefined) {
        let word = MD_VERDICTS[c.verdict] ?? verdictLabel(c.verdict);
        if (c.verdict === "not_decided") {
          const baseRuns = row.cells[reply.baseline]?.n ?? 0;
          word += isNum(c.detectable_pct)
            ? `: ${baseRuns} vs ${c.n} runs detect about ±${c.detectable_pct.toFixed(1)}%` +
              (isNum(c.runs_needed) ? `; ~${c.runs_needed} more a side would decide` : "")
            : c.undecided_reason
              ? `: ${c.undecided_reason}`
              : "";
        }
        const parts = [isNum(c.delta_pct) ? formatDeltaPct(c.delta_pct) : null, word];
        text += ` (${parts.filter(Boolean).join(", ")})`;
      }
      if (c.flags?.length) text += " ⚠";
      cells.push(text);
    }
    lines.push(`| ${cells.join(" | ")} |`);
  }
  let out = `${lines.join("\n")}\n\n`;
  out +=
    `Medians over the runs of each experiment, change against **${mdEscape(reply.baseline)}**; ` +
    `verdicts from ${mdEscape(reply.method.name)} at a ${Math.round((1 - reply.method.confidence) * 100)}% ` +
    "false-positive rate (not decided: these runs cannot tell the change from noise; equivalent: provably inside " +
    "the smallest meaningful change).\n";
  if (reply.validity.summary.length) {
    out += "\n⚠ Flagged runs:\n";
    for (const s of reply.validity.summary.slice(0, 10)) out += `- ${mdEscape(s)}\n`;
    if (reply.validity.summary.length > 10) out += `- ... and ${reply.validity.summary.length - 10} more\n`;
  }
  const knobs = reply.changes.flatMap((cs) => cs.knob_changes.map((k) => ({ cs, k })));
  if (knobs.length) {
    out += "\nConfiguration changes:\n";
    for (const { cs, k } of knobs) {
      out += `- ${mdEscape(cs.experiment)}: \`${mdEscape(k.knob)}\` ${mdEscape(k.before)} -> ${mdEscape(k.after)}\n`;
    }
  }
  out += syscallsMarkdown(reply);
  if (link) out += `\n[Open this comparison in perflab](${link})\n`;
  return out;
}
