// Per function: share of the base, share of the other (normalised), and the change of total and self
// time, largest changes first.
import { useMemo } from "react";
import { SortHeader } from "@/components/SortHeader";
import { type DiffTree, functionDeltas } from "@/lib/flamegraph";
import { formatPct, formatPp } from "../format";
import { deltaClass } from "./FrameTooltip";

type Sort = "delta_total" | "delta_self" | "total" | "self";

const LIMIT = 100;

export function DiffFunctionTable({
  diff,
  sort,
  onSort,
  filter,
}: {
  diff: DiffTree;
  sort: Sort;
  onSort: (s: Sort) => void;
  filter: RegExp | null;
}) {
  const all = useMemo(() => functionDeltas(diff), [diff]);
  const rows = useMemo(() => {
    const list = filter ? all.filter((r) => filter.test(r.name)) : [...all];
    const key = (r: (typeof all)[number]): number =>
      sort === "delta_total"
        ? Math.abs(r.deltaTotal)
        : sort === "delta_self"
          ? Math.abs(r.deltaSelf)
          : sort === "total"
            ? r.totalBase
            : r.selfBase;
    return list.sort((a, b) => key(b) - key(a) || (a.name < b.name ? -1 : 1)).slice(0, LIMIT);
  }, [all, sort, filter]);
  const base = diff.baseTotal || 1;
  const header = (label: string, key: Sort) => (
    <SortHeader label={label} sortKey={key} current={sort} order="desc" numeric onSort={(k) => onSort(k)} />
  );
  return (
    <div className="table-wrap flame-table">
      <table className="table" aria-label="Function changes">
        <thead>
          <tr>
            <th scope="col">Function</th>
            {header("Base", "total")}
            <th scope="col" className="num">
              Other
            </th>
            {header("Δ total", "delta_total")}
            {header("Δ self", "delta_self")}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.nameId}>
              <td className="mono flame-fn-cell">{r.name}</td>
              <td className="num">{formatPct(r.totalBase / base)}</td>
              <td className="num">{formatPct(r.totalOther / base)}</td>
              <td className={`num ${deltaClass(r.deltaTotal) ?? ""}`}>{formatPp(r.deltaTotal / base)}</td>
              <td className={`num ${deltaClass(r.deltaSelf) ?? ""}`}>{formatPp(r.deltaSelf / base)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
