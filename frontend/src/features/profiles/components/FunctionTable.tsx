// Functions by self or total time; picking one opens its sandwich. Long tables show the top rows only:
// a search narrows them.
import { useMemo, useState } from "react";
import { SortHeader } from "@/components/SortHeader";
import type { FunctionRow } from "@/lib/flamegraph";
import { formatCell, formatPct } from "../format";

const LIMIT = 200;

interface Props {
  rows: readonly FunctionRow[];
  unit: string;
  profileTotal: number;
  sort: "self" | "total";
  onSort: (s: "self" | "total") => void;
  selected: string;
  onSelect: (name: string) => void;
  /** Only names matching this are listed (the page's search). */
  filter: RegExp | null;
}

export function FunctionTable({ rows, unit, profileTotal, sort, onSort, selected, onSelect, filter }: Props) {
  const [showAll, setShowAll] = useState(false);
  const sorted = useMemo(() => {
    const list = filter ? rows.filter((r) => filter.test(r.name)) : [...rows];
    const key = sort;
    const other = sort === "self" ? "total" : "self";
    return list.sort((a, b) => b[key] - a[key] || b[other] - a[other] || (a.name < b.name ? -1 : 1));
  }, [rows, sort, filter]);
  const shown = showAll ? sorted : sorted.slice(0, LIMIT);
  const pct = (v: number) => formatPct(profileTotal > 0 ? v / profileTotal : 0);

  return (
    <div className="table-wrap flame-table">
      <table className="table" aria-label="Functions">
        <thead>
          <tr>
            <th scope="col">Function</th>
            <SortHeader
              label="Self"
              sortKey="self"
              current={sort}
              order="desc"
              numeric
              onSort={(k) => onSort(k)}
            />
            <th scope="col" className="num">
              Self %
            </th>
            <SortHeader
              label="Total"
              sortKey="total"
              current={sort}
              order="desc"
              numeric
              onSort={(k) => onSort(k)}
            />
            <th scope="col" className="num">
              Total %
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.nameId} aria-selected={r.name === selected}>
              <td className="flame-fn-cell">
                <button
                  type="button"
                  className="link-btn mono"
                  onClick={() => onSelect(r.name)}
                  aria-label={`Sandwich of ${r.name}`}
                >
                  {r.name}
                </button>
              </td>
              <td className="num">{formatCell(r.self, unit)}</td>
              <td className="num">
                <Bar value={profileTotal > 0 ? r.self / profileTotal : 0} />
                {pct(r.self)}
              </td>
              <td className="num">{formatCell(r.total, unit)}</td>
              <td className="num">
                <Bar value={profileTotal > 0 ? r.total / profileTotal : 0} />
                {pct(r.total)}
              </td>
            </tr>
          ))}
          {shown.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                No function matches the search.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {sorted.length > shown.length ? (
        <div className="flame-table-more muted">
          Showing the top {shown.length} of {sorted.length} functions.{" "}
          <button type="button" className="link-btn" onClick={() => setShowAll(true)}>
            Show all
          </button>
        </div>
      ) : null}
    </div>
  );
}

function Bar({ value }: { value: number }) {
  return (
    <span className="flame-bar" aria-hidden="true">
      <span style={{ width: `${Math.min(100, value * 100)}%` }} />
    </span>
  );
}
