import { describe, expect, it } from "vitest";
import { safeHref } from "./safe-url";

describe("safeHref", () => {
  it("keeps http(s) links and in-app paths", () => {
    expect(safeHref("https://nginx.org/en/docs/")).toBe("https://nginx.org/en/docs/");
    expect(safeHref("HTTP://example.com/a?b=1")).toBe("HTTP://example.com/a?b=1");
    expect(safeHref("/c/abc123")).toBe("/c/abc123");
    expect(safeHref("  https://x.example  ")).toBe("https://x.example");
  });

  it("drops every other scheme, including disguised ones", () => {
    for (const bad of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "java\nscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "file:///etc/passwd",
      "mailto:a@b.c",
      "//evil.example/x",
      "/\\evil.example",
      "relative/path",
      "https://",
      "",
      null,
      undefined,
    ]) {
      expect(safeHref(bad), String(bad)).toBeNull();
    }
  });
});
