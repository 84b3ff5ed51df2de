import { describe, expect, it } from "vitest";
import { markdownFirstLine } from "./markdown-plain";

describe("markdownFirstLine", () => {
  it("drops the marks people type in short notes", () => {
    expect(markdownFirstLine("**readv** storm in `nginx`, see [the log](https://example.test/x)")).toBe(
      "readv storm in nginx, see the log",
    );
    expect(markdownFirstLine("## Buffers _full_ here ##\n\nmore text")).toBe("Buffers full here");
    expect(markdownFirstLine("- [x] ~~retry~~ done")).toBe("retry done");
    expect(markdownFirstLine("> quoted *claim*")).toBe("quoted claim");
    expect(markdownFirstLine("\n\n1. first step\n2. second")).toBe("first step");
  });

  it("keeps what is not a mark: snake_case, arithmetic, HTML as text", () => {
    expect(markdownFirstLine("proxy_buffers 4 128k * 2")).toBe("proxy_buffers 4 128k * 2");
    expect(markdownFirstLine("<img src=x onerror=alert(1)>")).toBe("<img src=x onerror=alert(1)>");
    expect(markdownFirstLine("escaped \\*star\\*")).toBe("escaped *star*");
  });

  it("cuts to the length asked, with an ellipsis", () => {
    expect(markdownFirstLine(`**${"a".repeat(50)}**`, 40)).toBe(`${"a".repeat(39)}…`);
    expect(markdownFirstLine("")).toBe("");
  });
});
