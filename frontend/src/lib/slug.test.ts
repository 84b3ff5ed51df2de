import { describe, expect, it } from "vitest";
import { SLUG_PATTERN, slugify } from "./slug";

describe("slugify", () => {
  it("matches the server's rule", () => {
    expect(slugify("nginx proxy throughput")).toBe("nginx-proxy-throughput");
    expect(slugify("  Conntrack: table FULL!! ")).toBe("conntrack-table-full");
    expect(slugify("---")).toBe("");
    expect(SLUG_PATTERN.test(slugify("Tomcat 9 / nginx 1.24"))).toBe(true);
  });
});
