// A synthetic profile with exactly N distinct frames (merged-tree nodes with distinct names), shaped like a
// real one: a few hot paths tens of frames deep and a long tail of rarely sampled leaves. Deterministic
// (seeded), so every run of the benchmark draws the same picture.
import { type ApiTree, type FrameTree, fromApiTree } from "@/lib/flamegraph";

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODULES = ["kernel", "libc", "nginx", "openssl", "libpthread", "java", "vmlinux", "libz", "app", "rt"];
const VERBS = ["read", "write", "poll", "send", "recv", "alloc", "free", "copy", "hash", "parse", "lock", "wait"];

export interface Generated {
  json: ApiTree;
  tree: FrameTree;
  /** d3-flame-graph's input: nested {name, value (inclusive), children}. */
  d3: D3Node;
  frames: number;
  maxDepth: number;
}

export interface D3Node {
  name: string;
  value: number;
  children?: D3Node[];
}

export function generateProfile(frames = 50_000, seed = 42, maxDepth = 48): Generated {
  const rand = mulberry32(seed);
  const parent: number[] = [-1];
  const depth: number[] = [0];
  const self: number[] = [0];
  const names: string[] = ["all"];
  const nameId: number[] = [0];
  for (let k = 1; k <= frames; k++) {
    // Mostly extend recent frames (deep stacks), sometimes branch from anywhere (wide fan-out).
    const r = rand();
    let p = r < 0.55 ? k - 1 - Math.floor(rand() * Math.min(k, 8)) : Math.floor(rand() ** 2.2 * k);
    while ((depth[p] as number) >= maxDepth) p = parent[p] as number;
    parent.push(p);
    depth.push((depth[p] as number) + 1);
    const mod = MODULES[Math.floor(rand() * MODULES.length)] as string;
    const verb = VERBS[Math.floor(rand() * VERBS.length)] as string;
    names.push(`${mod}::${verb}_${k.toString(36)}_${Math.floor(rand() * 1e6).toString(16)}`);
    nameId.push(k);
    // Heavy-tailed sample counts: most frames are cold, a few are hot.
    self.push(rand() < 0.35 ? 0 : Math.floor(Math.exp(rand() * rand() * 11)));
  }
  // Every leaf has at least one sample (a frame exists because a stack ended in or under it).
  const hasChild = new Uint8Array(frames + 1);
  for (let k = 1; k <= frames; k++) hasChild[parent[k] as number] = 1;
  for (let k = 1; k <= frames; k++) if (!hasChild[k] && !self[k]) self[k] = 1;

  const nodes = parent.map((p, i) => [nameId[i] as number, self[i] as number, 0, p]);
  const json: ApiTree = { unit: "samples", names, nodes };
  const tree = fromApiTree(json); // reorders into pre-order, computes totals
  // The server sends pre-order with totals: do the same so the timed path is the real one.
  const preorder: ApiTree = {
    unit: "samples",
    names: tree.names,
    nodes: Array.from({ length: tree.size }, (_, i) => [
      tree.nameId[i] as number,
      tree.self[i] as number,
      tree.total[i] as number,
      tree.parent[i] as number,
    ]),
  };
  return { json: preorder, tree, d3: toD3(tree), frames: tree.size - 1, maxDepth: tree.maxDepth };
}

function toD3(tree: FrameTree): D3Node {
  const nodes: D3Node[] = new Array(tree.size);
  for (let i = 0; i < tree.size; i++) {
    nodes[i] = { name: tree.names[tree.nameId[i] as number] as string, value: tree.total[i] as number };
  }
  for (let i = 1; i < tree.size; i++) {
    const p = nodes[tree.parent[i] as number] as D3Node;
    if (!p.children) p.children = [];
    p.children.push(nodes[i] as D3Node);
  }
  return nodes[0] as D3Node;
}
