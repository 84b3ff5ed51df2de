import { describe, expect, it } from "vitest";
import { treeFromFolded } from "./folded";
import { depthOfRow, hitTest, layoutTree, rowOfDepth } from "./layout";
import { DEFAULT_FOLDED } from "./test-fixtures";
import { findPath, lineage, nameOf } from "./tree";

describe("layout", () => {
  const t = treeFromFolded(DEFAULT_FOLDED);

  it("lays out every frame at full zoom on a wide view, children left-aligned inside their parent", () => {
    const l = layoutTree(t, { widthPx: 1e9, minWidthPx: 0 });
    expect(l.count).toBe(t.size);
    expect(l.x[l.slotOf[0] as number]).toBe(0);
    expect(l.w[l.slotOf[0] as number]).toBe(1);
    for (let k = 0; k < l.count; k++) {
      const i = l.node[k] as number;
      expect(l.w[k]).toBeCloseTo((t.total[i] as number) / (t.total[0] as number), 12);
      if (i === 0) continue;
      const p = l.slotOf[t.parent[i] as number] as number;
      expect(l.x[k]).toBeGreaterThanOrEqual((l.x[p] as number) - 1e-12);
      expect((l.x[k] as number) + (l.w[k] as number)).toBeLessThanOrEqual(
        (l.x[p] as number) + (l.w[p] as number) + 1e-12,
      );
    }
  });

  it("culls frames narrower than the pixel threshold, with their subtrees", () => {
    const l = layoutTree(t, { widthPx: 200, minWidthPx: 1 });
    expect(l.count).toBeLessThan(t.size);
    for (let k = 0; k < l.count; k++) {
      expect((l.w[k] as number) * 200).toBeGreaterThanOrEqual(1);
      const p = t.parent[l.node[k] as number] as number;
      if (p >= 0) expect(l.slotOf[p]).toBeGreaterThanOrEqual(0); // never an orphan
    }
  });

  it("zooms: the frame fills the width, its ancestors stay full width, its siblings disappear", () => {
    const { node: z } = findPath(t, ["nginx", "__GI___readv"]);
    const l = layoutTree(t, { zoom: z, widthPx: 1000, minWidthPx: 0.5 });
    const slot = l.slotOf[z] as number;
    expect([l.x[slot], l.w[slot]]).toEqual([0, 1]);
    for (const a of lineage(t, z)) expect(l.w[l.slotOf[a] as number]).toBe(1);
    const sibling = findPath(t, ["nginx", "__libc_recv"]).node;
    expect(l.slotOf[sibling]).toBe(-1);
    // A child of the zoomed frame is as wide as its share of the zoomed frame.
    const child = z + 1;
    expect(l.w[l.slotOf[child] as number]).toBeCloseTo(
      (t.total[child] as number) / (t.total[z] as number),
      12,
    );
    // Clicking in the middle of the zoomed row hits the zoomed frame.
    expect(nameOf(t, hitTest(l, 0.5, t.depth[z] as number))).toBe("__GI___readv");
    expect(hitTest(l, 0.5, l.maxDepth + 1)).toBe(-1);
  });

  it("hit-tests every laid-out frame at its centre", () => {
    const l = layoutTree(t, { widthPx: 1200, minWidthPx: 1 });
    for (let k = 0; k < l.count; k++) {
      expect(hitTest(l, (l.x[k] as number) + (l.w[k] as number) / 2, l.depth[k] as number)).toBe(l.node[k]);
    }
  });

  it("puts the root at the bottom in a flame graph and on top in an icicle graph", () => {
    expect(rowOfDepth(0, 10, "flame")).toBe(9);
    expect(rowOfDepth(0, 10, "icicle")).toBe(0);
    expect(depthOfRow(rowOfDepth(3, 10, "flame"), 10, "flame")).toBe(3);
  });
});
