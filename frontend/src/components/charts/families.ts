// Colour families for overlays: each experiment keeps its palette colour (the same in every chart of a
// comparison) and its runs are shades of it with their own dash, so "which experiment" reads from
// the hue and "which run" from the shade and the line style, not from colour alone.
import { seriesColor } from "./palette";

const DASHES = ["", "6 3", "2 3", "10 3 2 3"];

function mix(hex: string, target: number, amount: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => Math.round(c + (target - c) * amount));
  return `#${ch.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** The colour of an experiment (its index in the comparison). */
export function familyColor(experimentIndex: number): string {
  return seriesColor(experimentIndex);
}

/** Run `runIndex` of experiment `experimentIndex`: first run in the family colour, later ones lighter/darker. */
export function runStyle(experimentIndex: number, runIndex: number): { color: string; dash: string } {
  const base = familyColor(experimentIndex);
  const step = runIndex % 4;
  const color =
    step === 0
      ? base
      : step === 1
        ? mix(base, 255, 0.35)
        : step === 2
          ? mix(base, 0, 0.3)
          : mix(base, 255, 0.6);
  return { color, dash: DASHES[step] ?? "" };
}
