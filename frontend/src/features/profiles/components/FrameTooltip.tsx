// Tooltip bodies: what a hovered frame costs, as text (frame names are never markup).
import { type DiffTree, type FrameTree, frameDelta, nameOf } from "@/lib/flamegraph";
import { formatPct, formatPp, formatSigned, formatValue } from "../format";

export function FrameTooltip({
  tree,
  node,
  rootTotal,
}: {
  tree: FrameTree;
  node: number;
  rootTotal?: number;
}) {
  const total = tree.total[node] as number;
  const self = tree.self[node] as number;
  const all = rootTotal ?? (tree.total[0] as number);
  const parent = node > 0 ? (tree.total[tree.parent[node] as number] as number) : total;
  return (
    <>
      <div className="flame-tooltip-name mono">{node === 0 ? "all" : nameOf(tree, node)}</div>
      <dl className="flame-tooltip-props">
        <dt>Total</dt>
        <dd>{formatValue(total, tree.unit)}</dd>
        <dt>of all</dt>
        <dd>{formatPct(all > 0 ? total / all : 0, 2)}</dd>
        <dt>of parent</dt>
        <dd>{formatPct(parent > 0 ? total / parent : 0, 2)}</dd>
        <dt>Self</dt>
        <dd>
          {formatValue(self, tree.unit)} ({formatPct(all > 0 ? self / all : 0, 2)})
        </dd>
      </dl>
    </>
  );
}

export function DiffTooltip({ diff, node }: { diff: DiffTree; node: number }) {
  const { tree } = diff;
  const d = frameDelta(diff, node);
  const all = diff.baseTotal || 1;
  const unit = tree.unit;
  const parent = node > 0 ? (tree.total[tree.parent[node] as number] as number) : d.totalBase;
  return (
    <>
      <div className="flame-tooltip-name mono">{node === 0 ? "all" : nameOf(tree, node)}</div>
      <dl className="flame-tooltip-props">
        <dt>Base total</dt>
        <dd>
          {formatValue(d.totalBase, unit)} ({formatPct(d.totalBase / all, 2)},{" "}
          {formatPct(parent > 0 ? d.totalBase / parent : 0)} of parent)
        </dd>
        <dt>Other total</dt>
        <dd>
          {formatValue(d.totalOther, unit)} ({formatPct(d.totalOther / all, 2)}){" "}
          <span className="faint">normalised</span>
        </dd>
        <dt>Δ total</dt>
        <dd className={deltaClass(d.deltaTotal)}>
          {formatSigned(d.deltaTotal, unit)} ({formatPp(d.deltaShare)})
        </dd>
        <dt>Δ self</dt>
        <dd className={deltaClass(d.deltaSelf)}>
          {formatSigned(d.deltaSelf, unit)} ({formatPp(d.deltaSelfShare)})
        </dd>
      </dl>
    </>
  );
}

export function deltaClass(v: number): string | undefined {
  if (Math.abs(v) < 1e-9) return undefined;
  return v > 0 ? "flame-grew" : "flame-shrank";
}

/** One line of plain text about a frame, for the live region the keyboard focus is announced in. */
export function describeFrame(tree: FrameTree, node: number): string {
  const total = tree.total[node] as number;
  const all = tree.total[0] as number;
  const name = node === 0 ? "all" : nameOf(tree, node);
  const depth = tree.depth[node] as number;
  return `${name}: ${formatValue(total, tree.unit)}, ${formatPct(all > 0 ? total / all : 0, 2)} of all, self ${formatValue(tree.self[node] as number, tree.unit)}, depth ${depth}`;
}
