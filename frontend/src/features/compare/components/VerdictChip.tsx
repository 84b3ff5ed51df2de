// The verdict of a change as a chip: icon + word, with the interval behind it on hover.
import type { Verdict } from "../api";
import { verdictIcon, verdictLabel } from "../format";

const CLASS: Record<Verdict, string> = {
  better: "chip chip-better",
  worse: "chip chip-worse",
  equivalent: "chip chip-noise",
  not_decided: "chip chip-single",
  increased: "chip chip-neutral",
  decreased: "chip chip-neutral",
  no_data: "chip chip-neutral",
  invalid: "chip chip-worse",
};

export function VerdictChip({ verdict, title }: { verdict: Verdict; title?: string }) {
  const icon = verdictIcon(verdict);
  return (
    <span className={CLASS[verdict]} title={title} data-verdict={verdict}>
      {icon ? <span aria-hidden="true">{icon}</span> : null}
      {verdictLabel(verdict)}
    </span>
  );
}
