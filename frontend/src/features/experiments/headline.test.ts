import { describe, expect, it } from "vitest";
import { headlineNumber, parseTags } from "./headline";

describe("headline helpers", () => {
  it("reads numbers and ignores anything else", () => {
    expect(headlineNumber({ requests_per_sec: 12722.9 }, "requests_per_sec")).toBe(12722.9);
    expect(headlineNumber({ requests_per_sec: "12k" }, "requests_per_sec")).toBeNull();
    expect(headlineNumber({}, "latency_p99_ms")).toBeNull();
    expect(headlineNumber(null, "x")).toBeNull();
  });

  it("parses tags from a comma or space separated list", () => {
    expect(parseTags("nginx, proxy_buffers  nginx ,, tomcat")).toEqual(["nginx", "proxy_buffers", "tomcat"]);
    expect(parseTags("  ")).toEqual([]);
  });
});
