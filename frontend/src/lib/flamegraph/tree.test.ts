import { describe, expect, it } from "vitest";
import { parseFolded, stacksOf, treeFromFolded } from "./folded";
import { DEFAULT_FOLDED } from "./test-fixtures";
import { type ApiTree, children, findPath, fromApiTree, nameOf, pathOf, TreeError } from "./tree";

describe("frame tree", () => {
  it("merges folded stacks into a pre-order tree with totals, like the server's tree JSON", () => {
    // The same input as the server's test_tree_is_preorder_with_totals_and_sorted_siblings.
    const t = treeFromFolded("main;b;x 2\nmain;a 3\nmain 1\nmain;b-c 4\nother 5\n");
    const rows = Array.from({ length: t.size }, (_, i) => [nameOf(t, i), t.self[i], t.total[i], t.parent[i]]);
    expect(rows).toEqual([
      ["all", 0, 15, -1],
      ["main", 1, 10, 0],
      ["a", 3, 3, 1],
      ["b", 0, 2, 1],
      ["x", 2, 2, 3],
      ["b-c", 4, 4, 1],
      ["other", 5, 5, 0],
    ]);
    expect([...children(t, 1)].map((c) => nameOf(t, c))).toEqual(["a", "b", "b-c"]);
    expect(t.maxDepth).toBe(3);
  });

  it("keeps every sample of the real default capture (total, leaves, round trip)", () => {
    const stacks = parseFolded(DEFAULT_FOLDED);
    const t = treeFromFolded(DEFAULT_FOLDED, "nanoseconds");
    const sum = [...stacks.values()].reduce((a, b) => a + b, 0);
    expect(sum).toBe(3_535_070_112);
    expect(t.total[0]).toBe(sum);
    expect(stacksOf(t)).toEqual(stacks);
    // A node's total is its self plus its children's totals, everywhere.
    for (let i = 0; i < t.size; i++) {
      let kids = 0;
      for (const c of children(t, i)) kids += t.total[c] as number;
      expect(t.total[i]).toBe((t.self[i] as number) + kids);
    }
  });

  it("reads the server's JSON, in pre-order or not, and rejects broken links with a message", () => {
    const json: ApiTree = {
      unit: "samples",
      names: ["all", "main", "f", "g"],
      nodes: [
        [0, 0, 6, -1],
        [1, 1, 6, 0],
        [3, 2, 2, 1],
        [2, 3, 3, 1],
      ],
    };
    const t = fromApiTree(json);
    expect(pathOf(t, 3)).toEqual(["main", "f"]);
    // Shuffled parents (a child before its parent) come out in pre-order too.
    const shuffled = fromApiTree({
      names: json.names,
      nodes: [
        [0, 0, 6, -1],
        [2, 3, 3, 2],
        [1, 1, 6, 0],
      ],
    });
    expect(pathOf(shuffled, 2)).toEqual(["main", "f"]);
    expect(shuffled.total[0]).toBe(4);
    expect(() =>
      fromApiTree({
        names: ["all"],
        nodes: [
          [0, 0, 0, -1],
          [5, 1, 1, 0],
        ],
      }),
    ).toThrow(TreeError);
    expect(() =>
      fromApiTree({
        names: ["all", "a"],
        nodes: [
          [0, 0, 0, -1],
          [1, 1, 1, 1],
        ],
      }),
    ).toThrow(/parent/);
  });

  it("finds a frame by its path, stopping at the deepest match when the path leaves the tree", () => {
    const t = treeFromFolded(DEFAULT_FOLDED);
    const hit = findPath(t, ["nginx", "__GI___readv"]);
    expect(hit.complete).toBe(true);
    expect(pathOf(t, hit.node)).toEqual(["nginx", "__GI___readv"]);
    const partial = findPath(t, ["nginx", "no_such_frame", "x"]);
    expect(partial).toEqual({ node: findPath(t, ["nginx"]).node, complete: false });
  });
});

describe("a tree the server pruned", () => {
  const json = {
    unit: "samples",
    names: ["all", "main", "[pruned]"],
    nodes: [
      [0, 0, 10, -1],
      [1, 2, 7, 0],
      [2, 5, 5, 1],
      [2, 3, 3, 0],
    ],
    pruned: { nodes: 40, groups: 2, total: 8, max_nodes: 2, min_total: 3 },
  };

  it("says what was left out and keeps every total", () => {
    const tree = fromApiTree(json);
    expect(tree.pruned).toEqual({ nodes: 40, groups: 2, maxNodes: 2 });
    expect(Array.from(tree.total)).toEqual([10, 7, 5, 3]);
  });

  it("says nothing when nothing was pruned", () => {
    expect(fromApiTree({ ...json, pruned: { ...json.pruned, nodes: 0 } }).pruned).toBeUndefined();
    expect(fromApiTree({ names: json.names, nodes: json.nodes }).pruned).toBeUndefined();
  });
});
