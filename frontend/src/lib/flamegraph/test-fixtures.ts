// Test data: the real nginx-proxy-buffers captures (perf record -g on the proxy VM, folded by
// stackcollapse-perf.pl), read as raw text by Vite. Only tests import this module.
import buffers4x128k from "../../../../tests/fixtures/captures/nginx-proxy-buffers/buffers-4x128k/stacks.folded?raw";
import defaultStacks from "../../../../tests/fixtures/captures/nginx-proxy-buffers/default/stacks.folded?raw";
import difffolded from "../../../../tests/fixtures/captures/nginx-proxy-buffers/diff-default-vs-4x128k.folded?raw";
import { parseFolded } from "./folded";

export const DEFAULT_FOLDED = defaultStacks;
export const BUFFERS_4X128K_FOLDED = buffers4x128k;

/** difffolded.pl output ("stack count1 count2") as the two stack sets it was made from. */
export function difffoldedColumns(): [Map<string, number>, Map<string, number>] {
  const a = new Map<string, number>();
  const b = new Map<string, number>();
  for (const line of difffolded.split("\n")) {
    const m = /^(.*\S) (\d+) (\d+)$/.exec(line);
    if (!m) continue;
    const [, stack, c1, c2] = m as unknown as [string, string, string, string];
    if (Number(c1)) a.set(stack, (a.get(stack) ?? 0) + Number(c1));
    if (Number(c2)) b.set(stack, (b.get(stack) ?? 0) + Number(c2));
  }
  return [a, b];
}

/** Independent per-stack arithmetic the tree-based model must agree with. */
export function stackShare(stacks: Map<string, number>, re: RegExp): number {
  let hit = 0;
  let all = 0;
  for (const [stack, count] of stacks) {
    all += count;
    if (stack.split(";").some((f) => re.test(f))) hit += count;
  }
  return hit / all;
}

export { parseFolded };
