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
  undecidedText,
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
  /** Runs behind the baseline's value: "3 vs 3 runs detect ...". */
  baselineRuns?: number;
  /** Labels of the runs behind `cell.values`, in the same order. */
  runLabels?: string[];
}

/** Each run's value, expandable under the cell, with a run far from its siblings named. */
function RunValues({ cell, unit, labels }: { cell: Cell; unit: string; labels: string[] }) {
  const outliers = new Set(cell.outliers ?? []);
  return (
    <details className="cmp-runs" data-testid="cmp-runs">
      <summary>runs</summary>
      <ul>
        {cell.values.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: values are positional, one per run, never reordered
          <li key={i} className={outliers.has(i) ? "cmp-outlier" : undefined}>
            <span>{labels[i] ?? `run ${i + 1}`}</span> <span className="num">{formatValue(v, unit)}</span>
            {outliers.has(i) ? <span className="cmp-flag"> outlier</span> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}

export function ValueCell({
  cell,
  unit,
  direction,
  isBaseline,
  confidence,
  compact,
  baselineRuns,
  runLabels,
}: Props) {
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
  const undecided = isBaseline ? null : undecidedText(cell, baselineRuns ?? cell.n);
  const outlierNames = (cell.outliers ?? []).map((i) => runLabels?.[i] ?? `run ${i + 1}`);
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
        {cell.two_mode ? (
          <span
            className="cmp-flag"
            data-testid="cmp-two-mode"
            title="the runs fall in two separate groups: a median hides which one a run lands in"
          >
            two modes
          </span>
        ) : null}
        {outlierNames.length ? (
          <span className="cmp-flag" data-testid="cmp-outlier" title="far from its sibling runs">
            outlier: {outlierNames.join(", ")}
          </span>
        ) : null}
        {!isBaseline ? (
          <VerdictChip verdict={cell.verdict} title={undecided ? `${undecided} ${interval}` : interval} />
        ) : null}
        {isBaseline && cell.noise_floor_pct !== null && cell.noise_floor_pct !== undefined && cell.n > 1 ? (
          <span title="A/A: the change that the baseline's own runs cannot tell from noise">
            noise ±{cell.noise_floor_pct.toFixed(1)}%
          </span>
        ) : null}
      </div>
      {!compact && undecided ? (
        <div className="cmp-undecided" data-testid="cmp-undecided">
          {undecided}
        </div>
      ) : null}
      {!compact && cell.n > 1 ? <RunValues cell={cell} unit={unit} labels={runLabels ?? []} /> : null}
    </td>
  );
}
