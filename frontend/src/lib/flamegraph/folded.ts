// Folded stacks ("a;b;c 42" per line, stackcollapse-*.pl's output) into a frame tree. The server
// converts every upload format to this; the UI reads the server's tree JSON, but tests, the benchmark
// and offline tools build trees straight from folded text.
import { type FrameTree, ROOT_NAME, TreeBuilder, TreeError } from "./tree";

const LINE = /^(.*\S)\s+(\d+(?:\.\d+)?)$/;

/** Parses folded text; blank lines are skipped, a malformed line is an error naming it. */
export function parseFolded(text: string): Map<string, number> {
  const stacks = new Map<string, number>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, "");
    if (!line.trim()) continue;
    const m = LINE.exec(line);
    if (!m) throw new TreeError(`line ${i + 1}: expected "frame;frame;... count"`);
    const stack = m[1] as string;
    stacks.set(stack, (stacks.get(stack) ?? 0) + Number(m[2]));
  }
  return stacks;
}

/** The merged tree of folded stacks (siblings sorted by name, as the server orders them). */
export function treeFromStacks(stacks: Iterable<[string, number]>, unit = "samples"): FrameTree {
  const b = new TreeBuilder([ROOT_NAME]);
  for (const [stack, count] of stacks) b.addStack(stack.split(";"), count);
  return b.build(unit).tree;
}

export function treeFromFolded(text: string, unit = "samples"): FrameTree {
  return treeFromStacks(parseFolded(text), unit);
}

/** The tree back as folded stacks (path -> self), for tests and exports. */
export function stacksOf(tree: FrameTree): Map<string, number> {
  const out = new Map<string, number>();
  const path: string[] = [];
  for (let i = 1; i < tree.size; i++) {
    path.length = (tree.depth[i] as number) - 1;
    path.push(tree.names[tree.nameId[i] as number] as string);
    const s = tree.self[i] as number;
    if (s > 0) out.set(path.join(";"), s);
  }
  return out;
}
