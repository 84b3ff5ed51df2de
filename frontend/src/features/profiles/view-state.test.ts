import { describe, expect, it } from "vitest";
import { patchParams } from "@/lib/url-state";
import {
  decodePath,
  encodePath,
  readCompareState,
  readViewState,
  VIEW_DEFAULTS,
  withZoom,
} from "./view-state";

describe("profile view state in the URL", () => {
  it("round-trips zoom path, search, mode, function and tab; defaults stay out of the URL", () => {
    const p = patchParams(
      new URLSearchParams(),
      {
        zoom: encodePath(["nginx", "__GI___readv"]),
        q: "readv|writev",
        mode: "icicle",
        fn: "do_readv",
        tab: "graph",
      },
      VIEW_DEFAULTS,
    );
    expect(p.toString()).not.toContain("tab=");
    expect(readViewState(p)).toEqual({
      zoom: ["nginx", "__GI___readv"],
      q: "readv|writev",
      mode: "icicle",
      fn: "do_readv",
      sort: "total",
      tab: "graph",
    });
  });

  it("ignores unknown values and keeps names with odd characters intact", () => {
    const p = new URLSearchParams({
      mode: "sideways",
      zoom: "nginx;<img src=x onerror=alert(1)>;",
      fn: "a b",
    });
    const s = readViewState(p);
    expect(s.mode).toBe("flame");
    expect(s.zoom).toEqual(["nginx", "<img src=x onerror=alert(1)>"]);
    expect(s.fn).toBe("a b");
    expect(decodePath(withZoom(p, []).get("zoom"))).toEqual([]);
  });

  it("reads the comparison's ids and shared state", () => {
    const s = readCompareState(new URLSearchParams("base=a1&other=b2&tab=side&by=self&q=recv"));
    expect(s).toMatchObject({ base: "a1", other: "b2", tab: "side", by: "self", q: "recv", zoom: [] });
  });
});
