// One experiment's value of one metric: the median (or the single run's value), the change against
// the baseline coloured by whether it is good for this metric (with an arrow and a verdict word, never
// colour alone), min–max and n, and validity flags on the cell itself.
import type { Cell, Direction } from "../api";
import {
  changeArrow,
  changeTone,
  formatChange,
  formatInterval,
  formatSpread,
  formatValue,
  toneClass,
} from "../format";
import { VerdictChip } from "./VerdictChip";

interface Props {
  cell: Cell | undefined;
  unit: string;
  direction: Direction;
  isBaseline: boolean;
  confidence: number;
  /** Compact: no min–max line (steady-state tables). */
  compact?: boolean;
}

export function ValueCell({ cell, unit, direction, isBaseline, confidence, compact }: Props) {
  if (cell && cell.n === 0 && cell.verdict === "invalid") {
    return (
      <td className={`num${isBaseline ? " cmp-base" : ""}`} data-testid="cmp-cell">
        <VerdictChip
          verdict="invalid"
          title={`every run is invalid (${cell.invalid_runs} left out); include invalid runs to see them`}
        />
      </td>
    );
  }
  if (!cell || cell.n === 0 || cell.median === null || cell.median === undefined) {
    return (
      <td className={`num${isBaseline ? " cmp-base" : ""}`}>
        <span className="faint" title="No run of this experiment has this value">
          —
        </span>
      </td>
    );
  }
  const flags = cell.flags ?? [];
  const tone = changeTone(cell, direction);
  const interval = formatInterval(cell, unit, confidence);
  const spread = formatSpread(cell, unit);
  const cls = ["num", isBaseline ? "cmp-base" : "", flags.length ? "cmp-flagged" : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <td className={cls} data-testid="cmp-cell">
      <div className="cmp-cell-main">
        {flags.length ? (
          <span className="cmp-flag" title={flags.join("\n")}>
            ⚠<span className="sr-only"> flagged: {flags.join("; ")}</span>
          </span>
        ) : null}
        <span className="cmp-value">{formatValue(cell.median, unit)}</span>
        {!isBaseline && cell.delta_pct !== null && cell.delta_pct !== undefined ? (
          <span className={`cmp-change ${toneClass(tone)}`} title={interval}>
            {formatChange(cell.delta_pct)}
            <span aria-hidden="true"> {changeArrow(cell.delta_pct)}</span>
            <span className="sr-only"> {interval}</span>
          </span>
        ) : null}
      </div>
      <div className="cmp-cell-sub">
        {!compact && spread ? <span title="min–max over the runs">{spread}</span> : null}
        <span title={cell.n > 1 ? "median of this many runs" : "a single run"}>n={cell.n}</span>
        {cell.invalid_runs ? (
          <span className="cmp-flag" title="invalid runs left out of this value">
            {cell.invalid_runs} invalid left out
          </span>
        ) : null}
        {!isBaseline ? <VerdictChip verdict={cell.verdict} title={interval} /> : null}
        {isBaseline && cell.noise_floor_pct !== null && cell.noise_floor_pct !== undefined && cell.n > 1 ? (
          <span title="A/A: the change that the baseline's own runs cannot tell from noise">
            noise ±{cell.noise_floor_pct.toFixed(1)}%
          </span>
        ) : null}
      </div>
    </td>
  );
}
