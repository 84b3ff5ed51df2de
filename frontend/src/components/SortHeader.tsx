// A sortable column header: a button (keyboard reachable) plus aria-sort for screen readers.

interface Props<K extends string> {
  label: string;
  sortKey: K;
  current: K;
  order: "asc" | "desc";
  onSort: (key: K, order: "asc" | "desc") => void;
  numeric?: boolean;
  /** The order a first click picks; numbers are usually wanted highest first. */
  firstOrder?: "asc" | "desc";
}

export function SortHeader<K extends string>({
  label,
  sortKey,
  current,
  order,
  onSort,
  numeric,
  firstOrder,
}: Props<K>) {
  const active = current === sortKey;
  const ariaSort = active ? (order === "asc" ? "ascending" : "descending") : "none";
  const next = active ? (order === "asc" ? "desc" : "asc") : (firstOrder ?? (numeric ? "desc" : "asc"));
  return (
    <th className={numeric ? "num" : undefined} aria-sort={ariaSort} scope="col">
      <button type="button" className="sort-btn" data-active={active} onClick={() => onSort(sortKey, next)}>
        {label}
        <span aria-hidden="true">{active ? (order === "asc" ? "↑" : "↓") : "↕"}</span>
      </button>
    </th>
  );
}
