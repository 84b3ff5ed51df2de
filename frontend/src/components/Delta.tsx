// A change against a baseline: colour for the eye, words for everyone (and for colour-blind readers).
import { type Direction, deltaVerdict, formatDeltaPct } from "@/lib/format";

export function Delta({ pct, direction }: { pct: number | null | undefined; direction: Direction }) {
  const verdict = deltaVerdict(pct, direction);
  const word = verdict === "unchanged" ? "no change" : verdict;
  return (
    <span className={`num delta-${verdict}`} title={word}>
      {formatDeltaPct(pct)}
      <span className="sr-only"> ({word})</span>
      {verdict !== "unchanged" ? <span aria-hidden="true"> {verdict === "better" ? "▲" : "▼"}</span> : null}
    </span>
  );
}
