// Headline numbers of a run or an experiment come as loosely-typed JSON (they grow with new tools);
// read them defensively so a missing key shows "—" rather than crashing a table.
import { isNum } from "@/lib/format";

export function headlineNumber(
  headline: Record<string, unknown> | null | undefined,
  key: string,
): number | null {
  const v = headline?.[key];
  return isNum(v) ? v : null;
}

/** Splits "a, b  c" into tags the way the server stores them. */
export function parseTags(text: string): string[] {
  const seen = new Set<string>();
  for (const t of text.split(/[,\s]+/)) {
    const tag = t.trim();
    if (tag) seen.add(tag);
  }
  return [...seen];
}
