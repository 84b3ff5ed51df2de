import { describe, expect, it } from "vitest";
import { readCookie } from "./cookies";

describe("readCookie", () => {
  it("finds a cookie among others", () => {
    expect(readCookie("perflab_csrf", "a=1; perflab_csrf=abc%3D; b=2")).toBe("abc=");
    expect(readCookie("perflab_csrf", "perflab_csrf_old=x")).toBeNull();
    expect(readCookie("x", "")).toBeNull();
  });
});
