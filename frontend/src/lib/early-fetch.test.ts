import { afterEach, describe, expect, it } from "vitest";
import { takeEarly } from "./early-fetch";

const g = globalThis as unknown as { window?: { __perflabEarly?: Record<string, Promise<Response>> } };
const json = (body: unknown, status = 200) =>
  Promise.resolve(
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } }),
  );

describe("takeEarly", () => {
  afterEach(() => {
    delete g.window;
  });

  it("uses the early response once, then asks the server itself", async () => {
    g.window = { __perflabEarly: { me: json({ email: "early@x" }) } };
    const ask = async () => ({ email: "asked@x" });
    expect(await takeEarly("me", ask)).toEqual({ email: "early@x" });
    expect(await takeEarly("me", ask)).toEqual({ email: "asked@x" });
  });

  it("asks again when the early request failed or was never made", async () => {
    g.window = {
      __perflabEarly: { me: json({ error: "unauthorized" }, 401), x: Promise.reject(new Error("net")) },
    };
    const ask = async () => "asked";
    expect(await takeEarly("me", ask)).toBe("asked");
    expect(await takeEarly("x", ask)).toBe("asked");
    expect(await takeEarly("compare:other", ask)).toBe("asked");
  });
});
