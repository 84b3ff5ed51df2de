import { describe, expect, it } from "vitest";
import { parseFolded, treeFromFolded } from "./folded";
import { compileSearch, formatShare, searchTree } from "./search";
import { BUFFERS_4X128K_FOLDED, DEFAULT_FOLDED, stackShare } from "./test-fixtures";

function search(text: string, pattern: string) {
  const c = compileSearch(pattern);
  if (!c.ok || !c.regex) throw new Error("bad pattern");
  return searchTree(treeFromFolded(text), c.regex);
}

describe("search", () => {
  it("reports the share of samples with a matching frame, each sample counted once", () => {
    // readv matches several frames of one stack (ngx_readv_chain > __GI___readv > do_readv > ...).
    const r = search(DEFAULT_FOLDED, "readv");
    const expected = stackShare(parseFolded(DEFAULT_FOLDED), /readv/i);
    expect(r.fraction).toBeCloseTo(expected, 12);
    expect(formatShare(r.fraction)).toBe("46.8%");
    expect(r.names).toBe(5); // __GI___readv, do_readv, vfs_readv, ngx_readv_chain, do_iter_readv_writev

    const w = search(BUFFERS_4X128K_FOLDED, "writev");
    expect(w.fraction).toBeCloseTo(stackShare(parseFolded(BUFFERS_4X128K_FOLDED), /writev/i), 12);
    expect(formatShare(w.fraction)).toBe("57.0%");
  });

  it("counts a recursive or nested match once", () => {
    const t = treeFromFolded("main;f;g;f 10\nmain;f 5\nmain;h 1\n");
    const c = compileSearch("^(f|g)$");
    if (!c.ok || !c.regex) throw new Error("bad pattern");
    const r = searchTree(t, c.regex);
    expect(r.total).toBe(15);
    expect(r.nodes).toBe(3);
    expect(r.fraction).toBeCloseTo(15 / 16);
  });

  it("is case-insensitive unless the pattern has capitals, and anchors work", () => {
    const t = treeFromFolded("Main;tcp_sendmsg 3\nmain;TCP_x 1\n");
    const run = (p: string) => {
      const c = compileSearch(p);
      if (!c.ok || !c.regex) throw new Error(p);
      return searchTree(t, c.regex).total;
    };
    expect(run("tcp")).toBe(4);
    expect(run("TCP")).toBe(1);
    expect(run("^main$")).toBe(4);
    expect(run("\\btcp_send")).toBe(3);
  });

  it("turns an invalid regex into an error message instead of throwing", () => {
    const c = compileSearch("readv(");
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.error).toMatch(/Invalid regular expression/);
    expect(compileSearch("")).toEqual({ ok: true, regex: null });
  });

  it("treats frame names as data: markup matches literally", () => {
    const t = treeFromFolded("main;<img src=x onerror=alert(1)> 2\nmain;ok 2\n");
    const c = compileSearch("<img");
    if (!c.ok || !c.regex) throw new Error("bad pattern");
    expect(searchTree(t, c.regex).fraction).toBe(0.5);
  });
});
