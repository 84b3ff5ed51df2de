import { describe, expect, it } from "vitest";
import { pageTitle } from "./use-title";

describe("page titles", () => {
  it("names the page most specific first and the app last", () => {
    expect(pageTitle("run 2", "default", "nginx-proxy")).toBe("run 2 · default · nginx-proxy · perflab");
  });
  it("leaves out parts that are still loading", () => {
    expect(pageTitle(undefined, "", "Compare")).toBe("Compare · perflab");
    expect(pageTitle()).toBe("perflab");
  });
});
