import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api-error";
import { retryable } from "./ErrorBox";

describe("Retry is offered only when it can help", () => {
  it("not for a missing page, a refusal or bad input", () => {
    for (const status of [400, 401, 403, 404, 410, 422]) {
      expect(retryable(new ApiError(status, "x", "nope"))).toBe(false);
    }
  });
  it("for server trouble, timeouts, rate limits and an unreachable server", () => {
    for (const status of [0, 408, 429, 500, 503]) {
      expect(retryable(new ApiError(status, "x", "try later"))).toBe(true);
    }
    expect(retryable(new Error("network"))).toBe(true);
  });
});
