import { describe, expect, it } from "vitest";
import { DIFF_NEUTRAL, diffColor } from "./colors";
import { diffIntensity, diffTrees, frameDelta, fromApiDiff, functionDeltas, onlyInOther } from "./diff";
import { treeFromFolded, treeFromStacks } from "./folded";
import { layoutTree } from "./layout";
import { BUFFERS_4X128K_FOLDED, DEFAULT_FOLDED, difffoldedColumns } from "./test-fixtures";
import { findPath, pathOf } from "./tree";

describe("diff of default vs proxy_buffers 4 128k (real captures)", () => {
  const base = treeFromFolded(DEFAULT_FOLDED, "nanoseconds");
  const other = treeFromFolded(BUFFERS_4X128K_FOLDED, "nanoseconds");
  const d = diffTrees(base, other);

  it("normalises the other profile to the baseline's total", () => {
    expect(d.baseTotal).toBe(3_535_070_112);
    expect(d.otherTotalSamples).toBe(3_795_591_152);
    expect(d.factor).toBeCloseTo(3_535_070_112 / 3_795_591_152, 15);
    expect(frameDelta(d, 0).deltaTotal).toBeCloseTo(0, 3);
  });

  it("agrees node for node with difffolded.pl's output for the same pair", () => {
    const [a, b] = difffoldedColumns();
    const ref = diffTrees(treeFromStacks(a), treeFromStacks(b));
    expect(ref.tree.size).toBe(d.tree.size);
    for (let i = 0; i < d.tree.size; i++) {
      expect(pathOf(ref.tree, i)).toEqual(pathOf(d.tree, i));
      expect([ref.tree.total[i], ref.otherTotal[i]]).toEqual([d.tree.total[i], d.otherTotal[i]]);
    }
  });

  it("shows writev and context switches shrinking, recv and copies growing", () => {
    const at = (...path: string[]) => frameDelta(d, findPath(d.tree, path).node);
    expect(at("nginx", "[unknown]", "[unknown]", "[unknown]", "__GI___writev").deltaShare).toBeLessThan(
      -0.05,
    );
    expect(at("nginx", "__GI___readv").deltaShare).toBeLessThan(0);
    expect(at("nginx", "__libc_recv").deltaShare).toBeGreaterThan(0.05);
    const fn = new Map(functionDeltas(d).map((f) => [f.name, f]));
    expect(fn.get("__GI___writev")?.deltaTotal).toBeLessThan(0);
    expect(fn.get("schedule")?.deltaTotal).toBeLessThan(0);
    expect(fn.get("_copy_from_iter")?.deltaTotal).toBeGreaterThan(0);
    expect(fn.get("do_readv")?.deltaTotal).toBeGreaterThan(0);
    // Largest movers first: the scheduler (context switches) moved most.
    expect(functionDeltas(d)[0]?.name).toMatch(/schedule|finish_task_switch/);
    // Shares: schedule went from 49.6% to 22.7% of the profile.
    const s = fn.get("schedule");
    expect(((s?.totalBase ?? 0) / d.baseTotal) * 100).toBeCloseTo(49.6, 1);
    expect(((s?.totalOther ?? 0) / d.baseTotal) * 100).toBeCloseTo(22.7, 1);
  });

  it("colours by sign: red for growth, blue for shrinkage, neutral for no change", () => {
    const { value } = diffIntensity(d);
    const recv = findPath(d.tree, ["nginx", "__libc_recv"]).node;
    const writev = findPath(d.tree, ["nginx", "[unknown]", "[unknown]", "[unknown]", "__GI___writev"]).node;
    const [rr, , rb] = diffColor(value[recv] as number);
    const [wr, , wb] = diffColor(value[writev] as number);
    expect(rr).toBeGreaterThan(rb);
    expect(wb).toBeGreaterThan(wr);
    expect(diffColor(0)).toEqual(DIFF_NEUTRAL);
    for (let i = 1; i < d.tree.size; i++) expect(Math.abs(value[i] as number)).toBeLessThanOrEqual(1);
  });

  it("lists frames only in the other profile separately; the layout is the baseline's", () => {
    const only = onlyInOther(d);
    expect(only.length).toBeGreaterThan(0);
    for (const o of only) {
      expect(d.tree.total[o.node]).toBe(0);
      expect(d.tree.total[d.tree.parent[o.node] as number]).toBeGreaterThan(0);
      expect(o.total).toBeCloseTo((d.otherTotal[o.node] as number) * d.factor, 6);
    }
    const l = layoutTree(d.tree, { widthPx: 1e9, minWidthPx: 0 });
    for (const o of only) expect(l.slotOf[o.node]).toBe(-1);
  });

  it("reads the server's diff JSON into the same model", () => {
    const names = d.tree.names;
    const nodes = Array.from({ length: d.tree.size }, (_, i) => [
      d.tree.nameId[i] as number,
      d.tree.parent[i] as number,
      d.tree.self[i] as number,
      d.tree.total[i] as number,
      d.otherSelf[i] as number,
      d.otherTotal[i] as number,
    ]);
    const api = fromApiDiff({
      base_total: d.baseTotal,
      other_total: d.otherTotalSamples,
      factor: d.factor,
      names,
      nodes,
    });
    expect(api.factor).toBe(d.factor);
    expect([...api.otherTotal]).toEqual([...d.otherTotal]);
    expect([...api.tree.total]).toEqual([...d.tree.total]);
  });
});
