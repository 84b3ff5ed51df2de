// Differential flame graph: two profiles merged into one tree, laid out by the baseline's counts and
// coloured by how each frame's share of the profile changed. The other profile is scaled by
// factor = base total / other total, so a frame that kept its share shows no change even when the two
// captures have different sample counts.
import {
  type FrameTree,
  fromPreOrder,
  isPreOrder,
  nameOf,
  type Pruned,
  pathOf,
  preOrder,
  prunedOf,
  ROOT_NAME,
  TreeBuilder,
  TreeError,
  totalsOf,
} from "./tree";

/** The server's diff JSON: nodes are [name_idx, parent_idx, self_base, total_base, self_other, total_other]. */
export interface ApiDiff {
  base_total: number;
  other_total: number;
  factor?: number;
  unit?: string;
  names: readonly string[];
  nodes: readonly (readonly number[])[];
  pruned?: { nodes: number; groups: number; max_nodes: number };
}

export interface DiffTree {
  /** The merged structure with the baseline's counts (0 for frames only in the other profile). */
  readonly tree: FrameTree;
  /** The other profile's raw counts on the same nodes. */
  readonly otherSelf: Float64Array;
  readonly otherTotal: Float64Array;
  readonly baseTotal: number;
  readonly otherTotalSamples: number;
  /** base total / other total: multiply the other's counts by this to compare shares. */
  readonly factor: number;
  /** Set when the server left frames out (see Pruned). */
  readonly pruned?: Pruned;
}

export interface FrameDelta {
  readonly selfBase: number;
  readonly totalBase: number;
  /** The other profile's counts, normalised to the baseline's total. */
  readonly selfOther: number;
  readonly totalOther: number;
  readonly deltaSelf: number;
  readonly deltaTotal: number;
  /** Change of the frame's share of the whole profile (total), -1..1. */
  readonly deltaShare: number;
  readonly deltaSelfShare: number;
}

function factorOf(baseTotal: number, otherTotal: number): number {
  return otherTotal > 0 ? baseTotal / otherTotal : 1;
}

export function fromApiDiff(json: ApiDiff): DiffTree {
  const { names, nodes } = json;
  if (!Array.isArray(names) || !Array.isArray(nodes) || nodes.length === 0)
    throw new TreeError("diff: names and nodes must be non-empty arrays");
  const n = nodes.length;
  const nameId = new Int32Array(n);
  const parent = new Int32Array(n);
  const selfB = new Float64Array(n);
  const selfO = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const row = nodes[i] as readonly number[];
    if (!Array.isArray(row) || row.length < 6)
      throw new TreeError(`diff: node ${i} has ${row?.length} fields, not 6`);
    const [nm, p, sb, , so] = row as number[];
    if (!Number.isInteger(nm) || (nm as number) < 0 || (nm as number) >= names.length)
      throw new TreeError(`diff: node ${i} names ${nm}, outside the names table`);
    if (!Number.isInteger(p) || (i === 0 ? p !== -1 : (p as number) < 0 || (p as number) >= n))
      throw new TreeError(`diff: node ${i} has parent ${p}`);
    nameId[i] = nm as number;
    parent[i] = p as number;
    selfB[i] = Math.max(0, Number(sb) || 0);
    selfO[i] = Math.max(0, Number(so) || 0);
  }
  let tree: FrameTree;
  let otherSelf: Float64Array;
  const unit = json.unit ?? "samples";
  if (isPreOrder(parent)) {
    tree = fromPreOrder(unit, names, nameId, parent, selfB);
    otherSelf = selfO;
  } else {
    const order = preOrder(parent);
    const newId = new Int32Array(n);
    for (let j = 0; j < n; j++) newId[order[j] as number] = j;
    const nm2 = new Int32Array(n);
    const p2 = new Int32Array(n);
    const sb2 = new Float64Array(n);
    otherSelf = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const i = order[j] as number;
      nm2[j] = nameId[i] as number;
      p2[j] = j === 0 ? -1 : (newId[parent[i] as number] as number);
      sb2[j] = selfB[i] as number;
      otherSelf[j] = selfO[i] as number;
    }
    tree = fromPreOrder(unit, names, nm2, p2, sb2);
  }
  const otherTotal = totalsOf(tree, otherSelf);
  const baseTotal = tree.total[0] as number;
  const otherTotalSamples = otherTotal[0] as number;
  return {
    tree,
    otherSelf,
    otherTotal,
    baseTotal,
    otherTotalSamples,
    factor: factorOf(baseTotal, otherTotalSamples),
    ...(prunedOf(json.pruned) ? { pruned: prunedOf(json.pruned) } : {}),
  };
}

/** Merges two trees by frame path (what the server's diff does, for data already in the browser). */
export function diffTrees(base: FrameTree, other: FrameTree): DiffTree {
  const b = new TreeBuilder([ROOT_NAME], 0, 2);
  for (const [t, col] of [
    [base, 0],
    [other, 1],
  ] as const) {
    const map = new Int32Array(t.size);
    const ids = t.names.map((nm) => b.intern(nm));
    for (let i = 1; i < t.size; i++) {
      const node = b.child(map[t.parent[i] as number] as number, ids[t.nameId[i] as number] as number);
      map[i] = node;
      b.addSelf(node, t.self[i] as number, col);
    }
    b.addSelf(0, t.self[0] as number, col);
  }
  const { tree, order } = b.build(base.unit);
  const otherSelf = b.selfColumn(order, 1);
  const otherTotal = totalsOf(tree, otherSelf);
  const baseTotal = tree.total[0] as number;
  const otherTotalSamples = otherTotal[0] as number;
  return {
    tree,
    otherSelf,
    otherTotal,
    baseTotal,
    otherTotalSamples,
    factor: factorOf(baseTotal, otherTotalSamples),
  };
}

export function frameDelta(diff: DiffTree, node: number): FrameDelta {
  const f = diff.factor;
  const selfBase = diff.tree.self[node] as number;
  const totalBase = diff.tree.total[node] as number;
  const selfOther = (diff.otherSelf[node] as number) * f;
  const totalOther = (diff.otherTotal[node] as number) * f;
  const all = diff.baseTotal > 0 ? diff.baseTotal : 1;
  return {
    selfBase,
    totalBase,
    selfOther,
    totalOther,
    deltaSelf: selfOther - selfBase,
    deltaTotal: totalOther - totalBase,
    deltaShare: (totalOther - totalBase) / all,
    deltaSelfShare: (selfOther - selfBase) / all,
  };
}

export type DiffColorBy = "total" | "self";

/**
 * Signed intensity per node, -1 (shrank the most) .. 1 (grew the most), scaled by the largest change
 * among the baseline's frames. "total" compares inclusive shares (a path that grew is red from the root
 * up); "self" compares time spent in the frame itself (flamegraph.pl's differential colouring).
 */
export function diffIntensity(
  diff: DiffTree,
  by: DiffColorBy = "total",
): { value: Float64Array; maxAbsShare: number } {
  const { tree } = diff;
  const value = new Float64Array(tree.size);
  const base = by === "total" ? tree.total : tree.self;
  const other = by === "total" ? diff.otherTotal : diff.otherSelf;
  const all = diff.baseTotal > 0 ? diff.baseTotal : 1;
  let maxAbs = 0;
  for (let i = 1; i < tree.size; i++) {
    const d = ((other[i] as number) * diff.factor - (base[i] as number)) / all;
    value[i] = d;
    if ((tree.total[i] as number) > 0 && Math.abs(d) > maxAbs) maxAbs = Math.abs(d);
  }
  if (maxAbs > 0)
    for (let i = 1; i < tree.size; i++) value[i] = Math.max(-1, Math.min(1, (value[i] as number) / maxAbs));
  return { value, maxAbsShare: maxAbs };
}

export interface OnlyInOther {
  readonly node: number;
  readonly name: string;
  readonly path: string[];
  /** Normalised to the baseline's total. */
  readonly total: number;
  readonly share: number;
}

/**
 * Frames the baseline never reached (so they have no width in its layout): the topmost such node of each
 * branch, largest first.
 */
export function onlyInOther(diff: DiffTree): OnlyInOther[] {
  const { tree } = diff;
  const out: OnlyInOther[] = [];
  const other = diff.otherTotalSamples > 0 ? diff.otherTotalSamples : 1;
  for (let i = 1; i < tree.size; i++) {
    if ((tree.total[i] as number) > 0) continue;
    const o = diff.otherTotal[i] as number;
    if (o > 0)
      out.push({
        node: i,
        name: nameOf(tree, i),
        path: pathOf(tree, i),
        total: o * diff.factor,
        share: o / other,
      });
    i = (tree.end[i] as number) - 1; // its descendants are not in the baseline either
  }
  return out.sort((a, b) => b.total - a.total);
}

/** Per function, normalised deltas of self and total between the two profiles. */
export interface FunctionDelta {
  readonly nameId: number;
  readonly name: string;
  readonly selfBase: number;
  readonly totalBase: number;
  readonly selfOther: number;
  readonly totalOther: number;
  readonly deltaSelf: number;
  readonly deltaTotal: number;
}

export function functionDeltas(diff: DiffTree): FunctionDelta[] {
  const { tree } = diff;
  const n = tree.names.length;
  const sb = new Float64Array(n);
  const tb = new Float64Array(n);
  const so = new Float64Array(n);
  const to = new Float64Array(n);
  const seen = new Uint8Array(n);
  const onPath = new Int32Array(n);
  const path: number[] = [];
  for (let i = 1; i < tree.size; i++) {
    const d = tree.depth[i] as number;
    while (path.length >= d) {
      const left = tree.nameId[path.pop() as number] as number;
      onPath[left] = (onPath[left] as number) - 1;
    }
    const nm = tree.nameId[i] as number;
    seen[nm] = 1;
    sb[nm] = (sb[nm] as number) + (tree.self[i] as number);
    so[nm] = (so[nm] as number) + (diff.otherSelf[i] as number);
    if (onPath[nm] === 0) {
      tb[nm] = (tb[nm] as number) + (tree.total[i] as number);
      to[nm] = (to[nm] as number) + (diff.otherTotal[i] as number);
    }
    onPath[nm] = (onPath[nm] as number) + 1;
    path.push(i);
  }
  const f = diff.factor;
  const rows: FunctionDelta[] = [];
  for (let k = 0; k < n; k++) {
    if (!seen[k]) continue;
    const selfOther = (so[k] as number) * f;
    const totalOther = (to[k] as number) * f;
    rows.push({
      nameId: k,
      name: tree.names[k] as string,
      selfBase: sb[k] as number,
      totalBase: tb[k] as number,
      selfOther,
      totalOther,
      deltaSelf: selfOther - (sb[k] as number),
      deltaTotal: totalOther - (tb[k] as number),
    });
  }
  return rows.sort((a, b) => Math.abs(b.deltaTotal) - Math.abs(a.deltaTotal) || a.name.localeCompare(b.name));
}
