import { describe, expect, it } from "vitest";
import { findPath, layoutTree, nameOf, treeFromFolded } from "@/lib/flamegraph";
import { moveFocus } from "./components/FlameGraph";

// nginx calls readv (wide) and writev; writev calls a frame too narrow to draw at 100 px.
const tree = treeFromFolded("nginx;readv;copy 60\nnginx;writev 39\nnginx;writev;tiny 1\nidle 100\n");
const layout = layoutTree(tree, { widthPx: 100, minWidthPx: 1.5 });
const at = (...path: string[]) => findPath(tree, path).node;
const name = (node: number) => (node < 0 ? null : node === 0 ? "all" : nameOf(tree, node));

describe("arrow keys on the flame graph", () => {
  it("go to the callee and back to the caller in the direction the graph is drawn", () => {
    expect(name(moveFocus(layout, "flame", 0, "ArrowUp"))).toBe("idle");
    expect(name(moveFocus(layout, "flame", at("nginx"), "ArrowUp"))).toBe("readv");
    expect(name(moveFocus(layout, "flame", at("nginx", "readv"), "ArrowDown"))).toBe("nginx");
    expect(name(moveFocus(layout, "icicle", at("nginx"), "ArrowDown"))).toBe("readv");
    expect(name(moveFocus(layout, "icicle", at("nginx", "readv"), "ArrowUp"))).toBe("nginx");
    expect(moveFocus(layout, "flame", 0, "ArrowDown")).toBe(-1);
  });

  it("go left and right among drawn siblings only", () => {
    expect(name(moveFocus(layout, "flame", at("nginx", "readv"), "ArrowRight"))).toBe("writev");
    expect(name(moveFocus(layout, "flame", at("nginx", "writev"), "ArrowLeft"))).toBe("readv");
    expect(moveFocus(layout, "flame", at("nginx", "writev"), "ArrowRight")).toBe(-1);
    // "tiny" is under 1.5 px: not drawn, so not reachable either.
    expect(moveFocus(layout, "flame", at("nginx", "writev"), "ArrowUp")).toBe(-1);
    expect(moveFocus(layout, "flame", 0, "ArrowLeft")).toBe(-1);
  });
});
