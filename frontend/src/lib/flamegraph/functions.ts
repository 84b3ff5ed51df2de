// Per-function views: the table (self and total per frame name) and the sandwich of one function
// (who calls it, inverted; what it calls, merged over every place it occurs).
import { type FrameTree, TreeBuilder } from "./tree";

export interface FunctionRow {
  readonly nameId: number;
  readonly name: string;
  /** Samples where the function is the leaf. */
  readonly self: number;
  /** Samples where the function is on the stack, counted once per stack even when it recurses. */
  readonly total: number;
}

/**
 * Self and total per function. A node adds to its function's total only when no ancestor has the same
 * name (the outermost call of a recursion), so no total exceeds the profile's.
 */
export function functionTable(tree: FrameTree): FunctionRow[] {
  const n = tree.names.length;
  const self = new Float64Array(n);
  const total = new Float64Array(n);
  const seen = new Uint8Array(n);
  forEachOutermost(tree, (i, outermost) => {
    const nm = tree.nameId[i] as number;
    seen[nm] = 1;
    self[nm] = (self[nm] as number) + (tree.self[i] as number);
    if (outermost) total[nm] = (total[nm] as number) + (tree.total[i] as number);
  });
  const rows: FunctionRow[] = [];
  for (let k = 0; k < n; k++) {
    if (seen[k] && (total[k] as number) > 0)
      rows.push({
        nameId: k,
        name: tree.names[k] as string,
        self: self[k] as number,
        total: total[k] as number,
      });
  }
  return rows;
}

/**
 * Calls `fn` for every node but the root, in pre-order, saying whether it is the outermost occurrence of
 * its name on its stack. Keeps a count per name of the current root path.
 */
function forEachOutermost(tree: FrameTree, fn: (node: number, outermost: boolean) => void): void {
  const onPath = new Int32Array(tree.names.length);
  const path: number[] = [];
  for (let i = 1; i < tree.size; i++) {
    const d = tree.depth[i] as number; // path holds the ancestors at depths 1..d-1
    while (path.length >= d) {
      const left = path.pop() as number;
      const nm = tree.nameId[left] as number;
      onPath[nm] = (onPath[nm] as number) - 1;
    }
    const nm = tree.nameId[i] as number;
    fn(i, onPath[nm] === 0);
    onPath[nm] = (onPath[nm] as number) + 1;
    path.push(i);
  }
}

/** Nodes named `nameId` with no ancestor of the same name. */
export function outermostOccurrences(tree: FrameTree, nameId: number): number[] {
  const out: number[] = [];
  for (let i = 1; i < tree.size; i++) {
    if (tree.nameId[i] !== nameId) continue;
    out.push(i);
    i = (tree.end[i] as number) - 1; // nested occurrences are inside this one's subtree
  }
  return out;
}

export interface Sandwich {
  readonly nameId: number;
  readonly name: string;
  readonly self: number;
  readonly total: number;
  /**
   * Callers, inverted: the function is the root, its children are its direct callers, theirs the callers'
   * callers, up to the outermost frame. Each node's total is the function's samples reached through it.
   */
  readonly callers: FrameTree;
  /** Callees: the function is the root; every occurrence's subtree merged by path. */
  readonly callees: FrameTree;
}

/** The sandwich view of one function (by name index); only outermost occurrences count, as in the table. */
export function sandwich(tree: FrameTree, nameId: number): Sandwich {
  const occ = outermostOccurrences(tree, nameId);
  const callers = new TreeBuilder(tree.names, nameId);
  const callees = new TreeBuilder(tree.names, nameId);
  const map = new Int32Array(tree.size);
  let self = 0;
  let total = 0;
  for (const i of occ) {
    const w = tree.total[i] as number;
    total += w;
    let c = 0;
    for (let a = tree.parent[i] as number; a > 0; a = tree.parent[a] as number) {
      c = callers.child(c, tree.nameId[a] as number);
    }
    callers.addSelf(c, w);

    map[i] = 0;
    callees.addSelf(0, tree.self[i] as number);
    const stop = tree.end[i] as number;
    for (let j = i + 1; j < stop; j++) {
      const b = callees.child(map[tree.parent[j] as number] as number, tree.nameId[j] as number);
      map[j] = b;
      callees.addSelf(b, tree.self[j] as number);
    }
  }
  // Self time of the function includes nested (recursive) occurrences, as in the function table.
  for (let i = 1; i < tree.size; i++) if (tree.nameId[i] === nameId) self += tree.self[i] as number;
  return {
    nameId,
    name: tree.names[nameId] ?? "",
    self,
    total,
    callers: callers.build(tree.unit).tree,
    callees: callees.build(tree.unit).tree,
  };
}

/** Index of a name in the tree's names table, or -1. */
export function nameIndex(tree: FrameTree, name: string): number {
  return tree.names.indexOf(name);
}
