import { describe, expect, it } from "vitest";
import { shellQuote } from "./shell-quote";

describe("shellQuote", () => {
  it("keeps plain words and quotes the rest", () => {
    expect(shellQuote("wrk.txt")).toBe("wrk.txt");
    expect(shellQuote("http://127.0.0.1:8000")).toBe("http://127.0.0.1:8000");
    expect(shellQuote("proxy_buffers 4 128k")).toBe("'proxy_buffers 4 128k'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
  });
});
