import { describe, expect, it } from "vitest";
import {
  cliCommand,
  fileBody,
  fileErrors,
  type ImportEntry,
  pastedEntry,
  previewFacts,
  readable,
  readFileEntry,
  roleError,
} from "./import-files";

describe("reading files", () => {
  it("reads text as text and gzip as base64", async () => {
    const text = await readFileEntry(new File(["Requests/sec:   5627.00\n"], "wrk.txt"));
    expect(text).toMatchObject({
      name: "wrk.txt",
      encoding: "text",
      content: "Requests/sec:   5627.00\n",
      size: 24,
    });
    const gz = await readFileEntry(new File([new Uint8Array([0x1f, 0x8b, 8, 0, 0xff])], "vmstat.txt.gz"));
    expect(gz).toMatchObject({ encoding: "base64", content: "H4sIAP8=", size: 5 });
  });
  it("names pastes so they do not collide", () => {
    const a = pastedEntry("x", []);
    const b = pastedEntry("y", [a]);
    expect([a.name, b.name]).toEqual(["pasted-1.txt", "pasted-2.txt"]);
  });
  it("sends a role only when the user set one", () => {
    const e: ImportEntry = { ...pastedEntry("x", []), kind: "auto" };
    expect(fileBody(e)).toEqual({ name: "pasted-1.txt", content: "x", encoding: "text", kind: "auto" });
    expect(fileBody({ ...e, role: "proxy" }).role).toBe("proxy");
  });
  it("checks roles like the server", () => {
    expect(roleError("proxy-1")).toBeNull();
    expect(roleError(null)).toBeNull();
    expect(roleError("my proxy")).toMatch(/Letters/);
    expect(roleError("x".repeat(65))).toMatch(/64/);
  });
});

describe("previewFacts", () => {
  it("shows what identifies each kind", () => {
    expect(
      previewFacts("wrk", {
        requests_per_sec: 5627,
        requests: 56497,
        non_2xx_3xx: 0,
        latency_p99_ms: 178.57,
      }),
    ).toEqual([
      { label: "Requests/sec", value: "5,627.00" },
      { label: "p99", value: "178.57 ms" },
      { label: "requests", value: "56,497" },
    ]);
    expect(previewFacts("vmstat", { samples: 12, columns: ["r", "b", "us", "sy"] })).toEqual([
      { label: "samples", value: "12" },
      { label: "columns", value: "r b us sy" },
    ]);
    expect(
      previewFacts("strace-c", { syscalls: 7, top: ["writev", "readv"], total_calls: 92627 })[0],
    ).toEqual({
      label: "top syscalls",
      value: "writev, readv",
    });
    expect(previewFacts("sysctl", { keys: ["a", "b"] })).toEqual([{ label: "keys", value: "a, b" }]);
  });
});

describe("fileErrors", () => {
  it("splits the server's detail by file name", () => {
    const m = fileErrors(
      "nothing was imported: wrk.txt: line 3: no Requests/sec; my; file.txt: empty input",
      ["wrk.txt", "my; file.txt", "vmstat.txt"],
    );
    expect(Object.fromEntries(m)).toEqual({
      "wrk.txt": "line 3: no Requests/sec",
      "my; file.txt": "empty input",
    });
  });
  it("returns nothing when no file is named", () => {
    expect(fileErrors("request body too large", ["wrk.txt"]).size).toBe(0);
  });
});

describe("cliCommand", () => {
  it("quotes what the shell would split", () => {
    expect(
      cliCommand("http://perflab:8000/", "nginx", "proxy_buffers 4 128k", "run 1", [
        "wrk.txt",
        "vm stat.txt",
      ]),
    ).toBe(
      "perflab-agent import --server http://perflab:8000 --token plb_YOUR_TOKEN --project nginx --experiment 'proxy_buffers 4 128k' --run-label 'run 1' \\\n    wrk.txt 'vm stat.txt'",
    );
  });
});

describe("readable", () => {
  it("is true when any part will be read, false when everything is kept as attachments", () => {
    expect(readable({ ok: true, imported: true })).toBe(true);
    expect(readable({ ok: true, imported: false })).toBe(false);
    expect(readable({ ok: false })).toBe(false);
    const parts = [
      { ok: true, imported: true },
      { ok: true, imported: false },
    ];
    expect(readable({ ok: true, parts })).toBe(true);
    expect(readable({ ok: true, parts: [{ ok: false, imported: false }] })).toBe(false);
  });
});
