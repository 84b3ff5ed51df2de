import { describe, expect, it } from "vitest";
import { parseFolded, stacksOf, treeFromFolded } from "./folded";
import { functionTable, nameIndex, sandwich } from "./functions";
import { DEFAULT_FOLDED } from "./test-fixtures";

/** Per-stack arithmetic: total = stacks containing the name (once), self = stacks ending in it. */
function expectedTable(stacks: Map<string, number>) {
  const out = new Map<string, { self: number; total: number }>();
  for (const [stack, count] of stacks) {
    const frames = stack.split(";");
    for (const f of new Set(frames)) {
      const row = out.get(f) ?? { self: 0, total: 0 };
      row.total += count;
      out.set(f, row);
    }
    const leaf = out.get(frames[frames.length - 1] as string);
    if (leaf) leaf.self += count;
  }
  return out;
}

describe("function table", () => {
  it("matches per-stack arithmetic on the real capture, recursion counted once", () => {
    const stacks = parseFolded(DEFAULT_FOLDED);
    const rows = functionTable(treeFromFolded(DEFAULT_FOLDED));
    const expected = expectedTable(stacks);
    expect(rows).toHaveLength(expected.size);
    for (const r of rows)
      expect({ name: r.name, self: r.self, total: r.total }).toEqual({
        name: r.name,
        ...expected.get(r.name),
      });
    const top = [...rows].sort((a, b) => b.total - a.total);
    expect(top[0]?.name).toBe("nginx");
    expect(top[0]?.total).toBe(3_535_070_112);
  });

  it("never lets a recursive function's total exceed the profile (server's recursion case)", () => {
    const t = treeFromFolded("main;f;g;f;g;f 10\nmain;f 5\nmain;h;f 1\n");
    const f = functionTable(t).find((r) => r.name === "f");
    expect(f).toMatchObject({ self: 16, total: 16 });
    const g = functionTable(t).find((r) => r.name === "g");
    expect(g).toMatchObject({ self: 0, total: 10 });
  });
});

describe("sandwich", () => {
  it("inverts the callers and merges the callees of do_readv across the real capture", () => {
    const stacks = parseFolded(DEFAULT_FOLDED);
    const t = treeFromFolded(DEFAULT_FOLDED);
    const s = sandwich(t, nameIndex(t, "do_readv"));
    // Independent: for each stack through do_readv, what came before (reversed) and after it.
    const callers = new Map<string, number>();
    const callees = new Map<string, number>();
    let total = 0;
    for (const [stack, count] of stacks) {
      const frames = stack.split(";");
      const at = frames.indexOf("do_readv");
      if (at < 0) continue;
      total += count;
      const up = ["do_readv", ...frames.slice(0, at).reverse()].join(";");
      callers.set(up, (callers.get(up) ?? 0) + count);
      const down = frames.slice(at).join(";");
      callees.set(down, (callees.get(down) ?? 0) + count);
    }
    expect(total).toBeGreaterThan(0);
    expect(s.total).toBe(total);
    expect(s.callers.total[0]).toBe(total);
    expect(s.callees.total[0]).toBe(total);
    const prefix = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [`do_readv;${k}`, v]));
    expect(prefix(stacksOf(s.callers))).toEqual(callers);
    expect(prefix(stacksOf(s.callees))).toEqual(callees);
    // Its only direct caller in this capture is the syscall entry point.
    const callerNames = new Set([...stacksOf(s.callers).keys()].map((k) => k.split(";")[0]));
    expect([...callerNames]).toEqual(["do_syscall_64"]);
  });

  it("counts a recursive function once in its callers and callees", () => {
    const t = treeFromFolded("main;f;g;f 10\nmain;f 5\nmain;h;f 1\n");
    const s = sandwich(t, nameIndex(t, "f"));
    expect(s.total).toBe(16);
    expect(s.self).toBe(16);
    expect(stacksOf(s.callers)).toEqual(
      new Map([
        ["main", 15],
        ["h;main", 1],
      ]),
    );
    expect(stacksOf(s.callees)).toEqual(new Map([["g;f", 10]]));
    expect(s.callees.self[0]).toBe(6);
  });
});
