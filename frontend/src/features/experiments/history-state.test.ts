import { describe, expect, it } from "vitest";
import {
  clearFilters,
  hasFilters,
  historyQuery,
  parseHistoryState,
  updateHistoryParams,
} from "./history-state";

const p = (s: string) => new URLSearchParams(s);

describe("experiment history URL state", () => {
  it("has sensible defaults for an empty URL", () => {
    expect(parseHistoryState(p(""))).toEqual({
      page: 1,
      pageSize: 50,
      sort: "created",
      order: "desc",
      q: "",
      tags: [],
      status: "",
      decision: "",
      from: "",
      to: "",
      selected: [],
      archived: false,
    });
  });

  it("round-trips a full state through the URL", () => {
    const url = updateHistoryParams(p(""), {
      sort: "p99",
      order: "asc",
      q: "buffers",
      tags: ["nginx", "proxy"],
      status: "done",
      decision: "adopted",
      from: "2026-11-01",
      to: "2026-11-22",
      selected: [4, 9],
    });
    const state = parseHistoryState(url);
    expect(state).toMatchObject({
      page: 1,
      sort: "p99",
      order: "asc",
      q: "buffers",
      tags: ["nginx", "proxy"],
      status: "done",
      from: "2026-11-01",
      to: "2026-11-22",
      selected: [4, 9],
    });
    expect(url.toString()).toBe(
      "decision=adopted&from=2026-11-01&order=asc&q=buffers&sel=4&sel=9&sort=p99&status=done&tag=nginx&tag=proxy&to=2026-11-22",
    );
  });

  it("ignores values it does not know instead of sending them to the server", () => {
    const s = parseHistoryState(
      p("sort=drop_table&order=sideways&status=weird&decision=maybe&page=abc&size=100000"),
    );
    expect(s).toMatchObject({
      sort: "created",
      order: "desc",
      status: "",
      decision: "",
      page: 1,
      pageSize: 50,
    });
  });

  it("goes back to page 1 when the filters change, but not when only the selection does", () => {
    const onPage3 = p("page=3&q=x");
    expect(updateHistoryParams(onPage3, { status: "done" }).get("page")).toBeNull();
    expect(updateHistoryParams(onPage3, { sort: "rps", order: "desc" }).get("page")).toBeNull();
    expect(updateHistoryParams(onPage3, { selected: [1] }).get("page")).toBe("3");
    expect(updateHistoryParams(onPage3, { page: 4 }).get("page")).toBe("4");
  });

  it("clears filters but keeps sort and selection", () => {
    const url = clearFilters(p("q=x&tag=a&status=done&decision=none&from=2026-01-01&sort=name&sel=5"));
    expect(url.toString()).toBe("sel=5&sort=name");
    expect(hasFilters(parseHistoryState(url))).toBe(false);
  });

  it("builds the API query with an inclusive date range", () => {
    const q = historyQuery(parseHistoryState(p("from=2026-11-01&to=2026-11-22&tag=a")));
    expect(q.created_after).toBe(new Date(2026, 10, 1).toISOString());
    expect(q.created_before).toBe(new Date(2026, 10, 23).toISOString());
    expect(q.tag).toEqual(["a"]);
    expect(q.q).toBeUndefined();
    expect(q.status).toBeUndefined();
  });
});
