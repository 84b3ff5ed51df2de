// How the comparison reads: values in the units engineers write (37.20ms, 12,722.92 req/s), changes
// as `(+171%)`, and a tone per change that says good or bad for that metric. Colour is never alone:
// every tone comes with an arrow and a word.
import { formatBytes, formatDeltaPct, formatFixed, formatInt, isNum } from "@/lib/format";
import type { Cell, Direction, Verdict } from "./api";

const EMPTY = "—";

/** A metric value in its unit: ms with two decimals like wrk prints, counts as integers. */
export function formatValue(v: number | null | undefined, unit: string): string {
  if (!isNum(v)) return EMPTY;
  switch (unit) {
    case "ms":
      return `${formatFixed(v, 2)}ms`;
    case "req/s":
      return formatFixed(v, 2);
    case "B/s":
      return `${formatBytes(v)}/s`;
    case "requests":
    case "responses":
    case "errors":
    case "calls":
      return formatInt(v);
    case "%":
      return `${formatFixed(v, 1)}%`;
    case "s":
      return `${formatFixed(v, v >= 100 ? 0 : 2)}s`;
    case "/s":
      return Math.abs(v) >= 100 ? formatInt(v) : formatFixed(v, 1);
    default:
      return Math.abs(v) >= 1000 ? formatInt(v) : formatFixed(v, Math.abs(v) >= 10 ? 1 : 2);
  }
}

/** The change as it follows a value: "(+171%)", "(-48.7%)"; nothing when there is no change to show. */
export function formatChange(pct: number | null | undefined): string {
  return isNum(pct) ? `(${formatDeltaPct(pct)})` : "";
}

export type Tone = "better" | "worse" | "noise" | "neutral";

/**
 * Good or bad for this metric. A decided verdict wins; an equivalent or not-decided change is never
 * coloured as a win or a loss (the chip says it is not decided, and why).
 */
export function changeTone(cell: Pick<Cell, "verdict" | "delta_pct">, direction: Direction): Tone {
  if (direction === "neutral") return "neutral";
  switch (cell.verdict) {
    case "better":
      return "better";
    case "worse":
      return "worse";
    case "equivalent":
    case "not_decided":
      return "noise";
    default:
      return "neutral";
  }
}

/** CSS class of a tone (the colours live in the stylesheet). */
export function toneClass(tone: Tone): string {
  return tone === "better" ? "delta-better" : tone === "worse" ? "delta-worse" : "delta-unchanged";
}

/** An arrow for the direction of the change: up or down, whatever that means for the metric. */
export function changeArrow(pct: number | null | undefined): string {
  if (!isNum(pct) || Math.abs(pct) < 0.05) return "";
  return pct > 0 ? "↑" : "↓";
}

const VERDICT_WORDS: Record<Verdict, string> = {
  better: "better",
  worse: "worse",
  equivalent: "equivalent",
  not_decided: "not decided",
  increased: "higher",
  decreased: "lower",
  no_data: "no data",
  invalid: "no valid run",
};

export function verdictLabel(verdict: Verdict): string {
  return VERDICT_WORDS[verdict];
}

/** The verdict's icon, so a chip reads without its colour. */
export function verdictIcon(verdict: Verdict): string {
  if (verdict === "better") return "✓";
  if (verdict === "worse") return "✗";
  if (verdict === "equivalent") return "≈";
  if (verdict === "not_decided") return "?";
  if (verdict === "increased") return "↑";
  if (verdict === "decreased") return "↓";
  return "";
}

/** The interval behind a verdict, for a tooltip: "95% CI of the change: -56.3% to -41.5%". */
export function formatInterval(cell: Cell, unit: string, confidence: number): string {
  const level = `${Math.round(confidence * 100)}%`;
  if (!isNum(cell.ci_low_pct) && cell.n === 1) return "One run on a side: no noise estimate, no interval.";
  if (!isNum(cell.ci_low_pct) || !isNum(cell.ci_high_pct)) return "No interval for this value.";
  let text = `${level} CI of the change: ${formatDeltaPct(cell.ci_low_pct)} to ${formatDeltaPct(cell.ci_high_pct)}`;
  if (isNum(cell.ci_low) && isNum(cell.ci_high)) {
    text += ` (${signed(cell.ci_low, unit)} to ${signed(cell.ci_high, unit)})`;
  }
  return `${text}.`;
}

function signed(v: number, unit: string): string {
  const body = formatValue(Math.abs(v), unit);
  return v < 0 ? `-${body}` : `+${body}`;
}

/**
 * Why a change is not decided and what would decide it, in the words of the cell:
 * "3 vs 3 runs detect changes of about ±9.8% here; about 14 more runs a side would decide a change of this size."
 */
export function undecidedText(
  cell: Pick<Cell, "verdict" | "undecided_reason" | "detectable_pct" | "runs_needed" | "n">,
  baselineRuns: number,
): string | null {
  if (cell.verdict !== "not_decided") return null;
  if (!isNum(cell.detectable_pct))
    return cell.undecided_reason ? `Not decided: ${cell.undecided_reason}.` : null;
  let text = `${baselineRuns} vs ${cell.n} runs detect changes of about ±${formatFixed(cell.detectable_pct, 1)}% here`;
  if (isNum(cell.runs_needed)) {
    text += `; about ${cell.runs_needed} more run${cell.runs_needed === 1 ? "" : "s"} a side would decide a change of this size`;
  } else {
    text += "; no practical number of runs would decide a change this small";
  }
  return `${text}.`;
}

/** "min–max" of the runs behind a median, or null for one run. */
export function formatSpread(cell: Pick<Cell, "n" | "min" | "max">, unit: string): string | null {
  if (cell.n < 2 || !isNum(cell.min) || !isNum(cell.max)) return null;
  return `${formatValue(cell.min, unit)}–${formatValue(cell.max, unit)}`;
}

/** Seconds from run start as m:ss, the way a note says "nginx reload at 0:42". */
export function formatOffset(seconds: number | null | undefined): string {
  if (!isNum(seconds)) return EMPTY;
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** "0:42" or "42" or "1:02:03" to seconds; null when it is not a time. */
export function parseOffset(text: string): number | null {
  const t = text.trim();
  if (!t) return null;
  if (/^\d+(\.\d+)?$/.test(t)) return Number.parseFloat(t);
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{2})$/.exec(t);
  if (!m) return null;
  const [, h, mm, ss] = m;
  if (Number(ss) >= 60 || (h !== undefined && Number(mm) >= 60)) return null;
  return Number(h ?? 0) * 3600 + Number(mm) * 60 + Number(ss);
}
