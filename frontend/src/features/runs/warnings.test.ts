import { describe, expect, it } from "vitest";
import { plainWarning } from "./warnings";

describe("plainWarning", () => {
  it("says what the paste lacks instead of which field is null", () => {
    // As printed by perflab.parsers.wrk for tests/fixtures/wrk/paste_elided_no_transfer.txt and a paste
    // without the Latency line.
    expect(plainWarning("no 'Latency' statistics line (truncated paste?): latency_ms is null")).toBe(
      "the paste has no latency line; latency figures are missing",
    );
    expect(plainWarning("no 'Transfer/sec:' line (truncated paste?): transfer_per_sec_bytes is null")).toBe(
      "the paste has no Transfer/sec line; transfer per second is missing",
    );
    expect(
      plainWarning("no 'N threads and M connections' line (truncated paste?): threads is null"),
    ).toContain("threads and connections are missing");
  });

  it("keeps warnings it does not know word for word", () => {
    expect(plainWarning("line 3: not a wrk line, ignored: 'x'")).toBe("line 3: not a wrk line, ignored: 'x'");
  });
});
