import { describe, expect, it } from "vitest";
import { bytesToBase64, isGzip } from "./base64";

function decode(b64: string): number[] {
  return Array.from(atob(b64), (c) => c.charCodeAt(0));
}

describe("bytesToBase64", () => {
  it("encodes exactly, including inputs larger than one chunk", () => {
    expect(bytesToBase64(new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0xff]))).toBe("H4sIAP8=");
    const big = new Uint8Array(200_000).map((_, i) => (i * 7) % 256);
    expect(decode(bytesToBase64(big))).toEqual(Array.from(big));
    expect(bytesToBase64(new Uint8Array())).toBe("");
  });
  it("recognises gzip by its magic bytes", () => {
    expect(isGzip(new Uint8Array([0x1f, 0x8b, 8]))).toBe(true);
    expect(isGzip(new TextEncoder().encode("procs -----"))).toBe(false);
  });
});
