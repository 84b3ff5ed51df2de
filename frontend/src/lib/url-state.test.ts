import { describe, expect, it } from "vitest";
import {
  dayStartIso,
  patchParams,
  readDate,
  readEnum,
  readInt,
  readIntList,
  readList,
  safeNextPath,
  toggleInList,
} from "./url-state";

const p = (s: string) => new URLSearchParams(s);

describe("reading params", () => {
  it("reads positive integers and rejects junk", () => {
    expect(readInt(p("page=3"), "page", 1)).toBe(3);
    expect(readInt(p("page=0"), "page", 1)).toBe(1);
    expect(readInt(p("page=-2"), "page", 1)).toBe(1);
    expect(readInt(p("page=2x"), "page", 1)).toBe(1);
    expect(readInt(p(""), "page", 1)).toBe(1);
    expect(readInt(p("size=900"), "size", 50, 1, 500)).toBe(50);
  });

  it("reads enums", () => {
    expect(readEnum(p("sort=rps"), "sort", ["created", "rps"] as const, "created")).toBe("rps");
    expect(readEnum(p("sort=drop"), "sort", ["created", "rps"] as const, "created")).toBe("created");
  });

  it("reads repeated keys as a de-duplicated list", () => {
    expect(readList(p("tag=a&tag=b&tag=a&tag=%20"), "tag")).toEqual(["a", "b"]);
    expect(readIntList(p("sel=3&sel=x&sel=10"), "sel")).toEqual([3, 10]);
  });

  it("reads calendar dates", () => {
    expect(readDate(p("from=2026-11-01"), "from")).toBe("2026-11-01");
    expect(readDate(p("from=yesterday"), "from")).toBe("");
  });
});

describe("patchParams", () => {
  it("drops defaults and empties, writes lists as repeated keys, and keeps other keys", () => {
    const next = patchParams(
      p("q=old&keep=1"),
      { q: "", page: 1, sort: "rps", tag: ["x", "y"], status: null },
      { page: 1, sort: "created" },
    );
    expect(next.toString()).toBe("keep=1&sort=rps&tag=x&tag=y");
  });

  it("is canonical: the same state gives the same URL whatever the order of edits", () => {
    const a = patchParams(patchParams(p(""), { sort: "name" }), { q: "nginx" });
    const b = patchParams(patchParams(p(""), { q: "nginx" }), { sort: "name" });
    expect(a.toString()).toBe(b.toString());
  });

  it("removes a list when it becomes empty", () => {
    expect(patchParams(p("sel=1&sel=2"), { sel: [] }).toString()).toBe("");
  });
});

describe("helpers", () => {
  it("toggles a value in a list", () => {
    expect(toggleInList([1, 2], 3)).toEqual([1, 2, 3]);
    expect(toggleInList([1, 2, 3], 2)).toEqual([1, 3]);
  });

  it("turns a calendar day into the ISO instant of its local midnight", () => {
    const iso = dayStartIso("2026-11-22");
    expect(iso).toBe(new Date(2026, 10, 22).toISOString());
    expect(dayStartIso("2026-11-30", 1)).toBe(new Date(2026, 11, 1).toISOString());
    expect(dayStartIso("")).toBeUndefined();
  });

  it("only follows local paths after login", () => {
    expect(safeNextPath("/p/demo?sort=rps")).toBe("/p/demo?sort=rps");
    expect(safeNextPath("//evil.example/x")).toBe("/projects");
    expect(safeNextPath("https://evil.example")).toBe("/projects");
    expect(safeNextPath("/\\evil.example")).toBe("/projects");
    expect(safeNextPath("/login?next=/x")).toBe("/projects");
    expect(safeNextPath(null)).toBe("/projects");
  });
});
