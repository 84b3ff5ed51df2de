import { describe, expect, it } from "vitest";
import {
  defaultOverlays,
  fromViewState,
  parseCompareState,
  toViewState,
  updateCompareParams,
} from "./view-state";

describe("compare view state in the URL", () => {
  it("reads experiments, baseline, charts and hidden sections", () => {
    const s = parseCompareState(
      new URLSearchParams(
        "e=direct&e=default&e=direct&base=direct&m=proxy:vmstat.sy&hide=syscalls&hide=bogus",
      ),
    );
    expect(s).toEqual({
      experiments: ["direct", "default"],
      baseline: "direct",
      overlays: [{ role: "proxy", metric: "vmstat.sy" }],
      hidden: ["syscalls"],
      includeInvalid: false,
    });
    expect(parseCompareState(new URLSearchParams("e=1&e=2")).overlays).toBeNull();
    expect(parseCompareState(new URLSearchParams("e=1&e=2&inv=1")).includeInvalid).toBe(true);
  });

  it("writes short canonical URLs", () => {
    const p = updateCompareParams(new URLSearchParams("e=1&e=2"), {
      baseline: "direct",
      overlays: [{ role: "proxy", metric: "pidstat.cpu_pct[nginx]" }],
    });
    expect(p.getAll("e")).toEqual(["1", "2"]);
    expect(p.get("base")).toBe("direct");
    expect(p.get("m")).toBe("proxy:pidstat.cpu_pct[nginx]");
    expect(updateCompareParams(p, { overlays: null, baseline: "" }).toString()).toBe("e=1&e=2");
    // Including invalid runs is part of the link; leaving them out (the default) is not written.
    const inv = updateCompareParams(new URLSearchParams("e=1&e=2"), { includeInvalid: true });
    expect(inv.get("inv")).toBe("1");
    expect(updateCompareParams(inv, { includeInvalid: false }).toString()).toBe("e=1&e=2");
  });

  it("picks the default charts the comparison has", () => {
    const available = [
      "vmstat.us",
      "vmstat.sy",
      "vmstat.id",
      "vmstat.cs",
      "pidstat.cpu_pct[nginx]",
      "pidstat.usr_pct[nginx]",
    ].map((key) => ({ role: "proxy", key, label: key, unit: "" }));
    expect(defaultOverlays(available).map((o) => o.metric)).toEqual([
      "vmstat.sy",
      "vmstat.us",
      "vmstat.cs",
      "pidstat.cpu_pct[nginx]",
    ]);
  });

  it("round-trips through a saved comparison's view_state", () => {
    const state = parseCompareState(new URLSearchParams("e=a&e=b&hide=syscalls&m=proxy:vmstat.sy"));
    const saved = toViewState(state, [{ role: "proxy", metric: "vmstat.sy" }]);
    expect(fromViewState(saved, new URLSearchParams())).toEqual({
      overlays: [{ role: "proxy", metric: "vmstat.sy" }],
      hidden: ["syscalls"],
    });
    // The visitor's own changes win; showing every section again is explicit (hide=none).
    const shown = updateCompareParams(new URLSearchParams(), { hidden: [] }, true);
    expect(shown.get("hide")).toBe("none");
    expect(fromViewState(saved, shown).hidden).toEqual([]);
  });
});
