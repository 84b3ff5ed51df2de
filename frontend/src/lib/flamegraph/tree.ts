// The frame tree every flame graph view works on: a merged call tree in flat typed arrays, in
// depth-first pre-order, so that a node's subtree is the contiguous range [i, end[i]) and layout,
// search and tables are single passes without recursion or per-node objects. Pure: no DOM, no React.

/** The server's compact tree (GET /api/profiles/{id}/tree): nodes are [name_idx, self, total, parent_idx]. */
export interface ApiTree {
  unit?: string;
  total?: number;
  names: readonly string[];
  nodes: readonly (readonly number[])[];
  /** What the server left out of a bounded tree (absent from older servers). */
  pruned?: { nodes: number; groups: number; max_nodes: number };
}

/** Frames the server summed into "[pruned]" nodes to keep the response bounded. */
export interface Pruned {
  /** Frames left out. */
  readonly nodes: number;
  /** "[pruned]" nodes standing for them (one under each frame that lost children). */
  readonly groups: number;
  /** The most frames the server sends. */
  readonly maxNodes: number;
}

/** The server's pruning summary, or undefined when nothing was left out. */
export function prunedOf(
  p: { nodes: number; groups: number; max_nodes: number } | undefined,
): Pruned | undefined {
  if (!p || !(p.nodes > 0)) return undefined;
  return { nodes: p.nodes, groups: p.groups, maxNodes: p.max_nodes };
}

export interface FrameTree {
  readonly unit: string;
  /** Distinct frame names; nodes refer to them by index. */
  readonly names: readonly string[];
  readonly size: number;
  readonly nameId: Int32Array;
  /** Parent node, -1 for the root (node 0). */
  readonly parent: Int32Array;
  readonly self: Float64Array;
  /** Inclusive count: self plus all descendants. total[0] is the profile's total. */
  readonly total: Float64Array;
  readonly depth: Int32Array;
  /** Exclusive end of the node's subtree in pre-order: children of i start at i + 1, next sibling is end[i]. */
  readonly end: Int32Array;
  readonly maxDepth: number;
  /** Set when the server left frames out (see Pruned). */
  readonly pruned?: Pruned;
}

export const ROOT_NAME = "all";

export class TreeError extends Error {
  override name = "TreeError";
}

/** Children of a node, in order. */
export function* children(tree: FrameTree, node: number): Generator<number> {
  const stop = tree.end[node] ?? node + 1;
  for (let c = node + 1; c < stop; c = tree.end[c] ?? stop) yield c;
}

export function nameOf(tree: FrameTree, node: number): string {
  return tree.names[tree.nameId[node] ?? 0] ?? "";
}

/** Frame names from the root's child down to the node (the root itself is not part of any path). */
export function pathOf(tree: FrameTree, node: number): string[] {
  const out: string[] = [];
  for (let n = node; n > 0; n = tree.parent[n] ?? 0) out.push(nameOf(tree, n));
  return out.reverse();
}

/** Ancestors from the root down to the node, both included. */
export function lineage(tree: FrameTree, node: number): number[] {
  const out: number[] = [];
  for (let n = node; n >= 0; n = n === 0 ? -1 : (tree.parent[n] ?? -1)) out.push(n);
  return out.reverse();
}

/**
 * The node reached by following frame names from the root. A path that leaves the tree stops at the
 * deepest node found: `complete` says whether every name matched (a zoom shared between two profiles
 * lands as deep as the other profile allows).
 */
export function findPath(tree: FrameTree, path: readonly string[]): { node: number; complete: boolean } {
  let node = 0;
  for (const name of path) {
    let next = -1;
    for (const c of children(tree, node)) {
      if (nameOf(tree, c) === name) {
        next = c;
        break;
      }
    }
    if (next < 0) return { node, complete: false };
    node = next;
  }
  return { node, complete: true };
}

/** Reads the server's tree JSON; checks shape and links, and re-orders into pre-order if needed. */
export function fromApiTree(json: ApiTree): FrameTree {
  const { names, nodes } = json;
  if (!Array.isArray(names) || !Array.isArray(nodes))
    throw new TreeError("tree: names and nodes must be arrays");
  const unit = typeof json.unit === "string" && json.unit ? json.unit : "samples";
  if (nodes.length === 0) return fromColumns(unit, [ROOT_NAME], [0], [-1], [0]);
  const n = nodes.length;
  const nameId = new Int32Array(n);
  const parent = new Int32Array(n);
  const self = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const row = nodes[i];
    if (!Array.isArray(row) || row.length < 4)
      throw new TreeError(`tree: node ${i} is not [name, self, total, parent]`);
    const [nm, s, , p] = row as number[];
    if (!Number.isInteger(nm) || (nm as number) < 0 || (nm as number) >= names.length)
      throw new TreeError(`tree: node ${i} names ${nm}, outside the names table`);
    if (!Number.isInteger(p) || (i === 0 ? p !== -1 : (p as number) < 0 || (p as number) >= n || p === i))
      throw new TreeError(`tree: node ${i} has parent ${p}`);
    nameId[i] = nm as number;
    parent[i] = p as number;
    self[i] = Number.isFinite(s) && (s as number) > 0 ? (s as number) : 0;
  }
  // Totals are recomputed from self counts rather than trusted: one source of truth for every view.
  const tree = isPreOrder(parent)
    ? fromPreOrder(unit, names, nameId, parent, self)
    : fromColumns(unit, names, nameId, parent, self);
  const pruned = prunedOf(json.pruned);
  return pruned ? { ...tree, pruned } : tree;
}

/** True when every node's parent is on the path of the node before it (what the server sends). */
export function isPreOrder(parent: Int32Array): boolean {
  const path: number[] = [0];
  for (let i = 1; i < parent.length; i++) {
    const p = parent[i] as number;
    while (path.length && path[path.length - 1] !== p) path.pop();
    if (!path.length) return false;
    path.push(i);
  }
  return true;
}

/**
 * Builds a tree from columns whose parents may come in any order (root at 0). Nodes are re-ordered into
 * pre-order keeping the given sibling order; totals are computed from self counts.
 */
export function fromColumns(
  unit: string,
  names: readonly string[],
  nameId: ArrayLike<number>,
  parent: ArrayLike<number>,
  self: ArrayLike<number>,
): FrameTree {
  const order = preOrder(parent);
  const n = nameId.length;
  const newId = new Int32Array(n);
  for (let j = 0; j < n; j++) newId[order[j] as number] = j;
  const outName = new Int32Array(n);
  const outParent = new Int32Array(n);
  const outSelf = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const i = order[j] as number;
    outName[j] = nameId[i] as number;
    outParent[j] = j === 0 ? -1 : (newId[parent[i] as number] as number);
    outSelf[j] = self[i] as number;
  }
  return fromPreOrder(unit, names, outName, outParent, outSelf);
}

/** Node ids in pre-order (siblings in input order); throws when some node is not reachable from 0. */
export function preOrder(parent: ArrayLike<number>): Int32Array {
  const n = parent.length;
  // Children lists as a linked list in input order (firstChild/lastChild/nextSibling).
  const first = new Int32Array(n).fill(-1);
  const last = new Int32Array(n).fill(-1);
  const next = new Int32Array(n).fill(-1);
  for (let i = 1; i < n; i++) {
    const p = parent[i] as number;
    if (first[p] === -1) first[p] = i;
    else next[last[p] as number] = i;
    last[p] = i;
  }
  const order = new Int32Array(n);
  let k = 0;
  const stack: number[] = [0];
  while (stack.length) {
    const i = stack.pop() as number;
    if (k >= n) break;
    order[k++] = i;
    const kids: number[] = [];
    for (let c = first[i] as number; c !== -1; c = next[c] as number) kids.push(c);
    for (let j = kids.length - 1; j >= 0; j--) stack.push(kids[j] as number);
  }
  if (k !== n) throw new TreeError(`tree: ${n - k} node(s) not connected to the root (a cycle?)`);
  return order;
}

/** Completes pre-ordered columns with totals, depths and subtree ends (children have larger ids). */
export function fromPreOrder(
  unit: string,
  names: readonly string[],
  nameId: Int32Array,
  parent: Int32Array,
  self: Float64Array,
): FrameTree {
  const n = nameId.length;
  const total = Float64Array.from(self);
  const end = new Int32Array(n);
  const depth = new Int32Array(n);
  for (let i = 0; i < n; i++) end[i] = i + 1;
  for (let i = n - 1; i > 0; i--) {
    const p = parent[i] as number;
    total[p] = (total[p] as number) + (total[i] as number);
    if ((end[i] as number) > (end[p] as number)) end[p] = end[i] as number;
  }
  let maxDepth = 0;
  for (let i = 1; i < n; i++) {
    const d = (depth[parent[i] as number] as number) + 1;
    depth[i] = d;
    if (d > maxDepth) maxDepth = d;
  }
  return { unit, names, size: n, nameId, parent, self, total, depth, end, maxDepth };
}

/**
 * Accumulates stacks into a merged tree, then emits it in pre-order with siblings sorted by name
 * (flamegraph.pl's order, and the server's). Each node carries `columns` self counts, so the same
 * builder merges two profiles for a diff.
 */
export class TreeBuilder {
  readonly names: string[];
  private readonly ids = new Map<string, number>();
  private readonly kids: (Map<number, number> | undefined)[] = [undefined];
  private readonly nodeName: number[];
  private readonly nodeParent: number[] = [-1];
  private readonly selfCols: number[][];

  constructor(
    names: readonly string[] = [ROOT_NAME],
    rootNameId = 0,
    readonly columns = 1,
  ) {
    this.names = [...names];
    this.names.forEach((nm, i) => {
      if (!this.ids.has(nm)) this.ids.set(nm, i);
    });
    this.nodeName = [rootNameId];
    this.selfCols = Array.from({ length: columns }, () => [0]);
  }

  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.ids.set(name, id);
    }
    return id;
  }

  /** The child of `node` named `nameId`, created when missing. */
  child(node: number, nameId: number): number {
    let m = this.kids[node];
    if (!m) {
      m = new Map();
      this.kids[node] = m;
    }
    let c = m.get(nameId);
    if (c === undefined) {
      c = this.nodeName.length;
      m.set(nameId, c);
      this.kids.push(undefined);
      this.nodeName.push(nameId);
      this.nodeParent.push(node);
      for (const col of this.selfCols) col.push(0);
    }
    return c;
  }

  addSelf(node: number, value: number, column = 0): void {
    const col = this.selfCols[column] as number[];
    col[node] = (col[node] as number) + value;
  }

  /** Adds one folded stack (frames outermost first). */
  addStack(frames: readonly string[], value: number, column = 0): void {
    let node = 0;
    for (const f of frames) node = this.child(node, this.intern(f));
    this.addSelf(node, value, column);
  }

  /** The tree of column 0, plus the node order used (builder ids in pre-order) for other columns. */
  build(unit: string): { tree: FrameTree; order: Int32Array } {
    const n = this.nodeName.length;
    const names = this.names;
    const order = new Int32Array(n);
    const newId = new Int32Array(n);
    let k = 0;
    const stack = [0];
    while (stack.length) {
      const i = stack.pop() as number;
      newId[i] = k;
      order[k++] = i;
      const m = this.kids[i];
      if (!m) continue;
      const sorted = [...m.values()].sort((a, b) => {
        const x = names[this.nodeName[a] as number] as string;
        const y = names[this.nodeName[b] as number] as string;
        return x < y ? -1 : x > y ? 1 : 0;
      });
      for (let j = sorted.length - 1; j >= 0; j--) stack.push(sorted[j] as number);
    }
    const nameId = new Int32Array(n);
    const parent = new Int32Array(n);
    const self = new Float64Array(n);
    const col0 = this.selfCols[0] as number[];
    for (let j = 0; j < n; j++) {
      const i = order[j] as number;
      nameId[j] = this.nodeName[i] as number;
      parent[j] = j === 0 ? -1 : (newId[this.nodeParent[i] as number] as number);
      self[j] = col0[i] as number;
    }
    return { tree: fromPreOrder(unit, names, nameId, parent, self), order };
  }

  /** Column `c`'s self counts in the order returned by build(). */
  selfColumn(order: Int32Array, c: number): Float64Array {
    const col = this.selfCols[c] as number[];
    const out = new Float64Array(order.length);
    for (let j = 0; j < order.length; j++) out[j] = col[order[j] as number] as number;
    return out;
  }
}

/** Totals of a self column over a tree's structure (same pre-order). */
export function totalsOf(tree: FrameTree, self: Float64Array): Float64Array {
  const total = Float64Array.from(self);
  for (let i = tree.size - 1; i > 0; i--) {
    const p = tree.parent[i] as number;
    total[p] = (total[p] as number) + (total[i] as number);
  }
  return total;
}
