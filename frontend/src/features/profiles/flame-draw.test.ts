import { describe, expect, it } from "vitest";
import { treeFromFolded } from "@/lib/flamegraph";
import { fitText, namePalette } from "./flame-draw";

// A monospace stand-in for canvas measureText: 7px per character.
const mono = (s: string) => s.length * 7;

describe("frame labels", () => {
  it("keeps a name that fits, cuts one that does not with an ellipsis, drops it when nothing fits", () => {
    expect(fitText("tcp_sendmsg", 100, mono)).toBe("tcp_sendmsg");
    expect(fitText("tcp_sendmsg_locked", 70, mono)).toBe("tcp_sendm…"); // 9 characters and the ellipsis: 70 px
    expect(mono(fitText("tcp_sendmsg_locked", 70, mono))).toBeLessThanOrEqual(70);
    expect(fitText("tcp_sendmsg", 10, mono)).toBe("");
  });

  it("never turns markup into anything but the characters themselves", () => {
    expect(fitText("<img src=x onerror=alert(1)>", 1000, mono)).toBe("<img src=x onerror=alert(1)>");
  });
});

describe("name palette", () => {
  it("gives a function the same colour wherever it appears, and search matches one colour", () => {
    const t = treeFromFolded("a;f 1\nb;f 1\nb;g 1\n");
    const p = namePalette(t, null);
    const fs = [...Array(t.size).keys()].filter((i) => t.names[t.nameId[i] as number] === "f");
    expect(fs).toHaveLength(2);
    expect(p.fill(fs[0] as number)).toBe(p.fill(fs[1] as number));
    const matched = new Uint8Array(t.size);
    matched[fs[0] as number] = 1;
    const searched = namePalette(t, matched);
    expect(searched.fill(fs[0] as number)).not.toBe(searched.fill(fs[1] as number));
    expect(searched.fill(fs[1] as number)).not.toBe(p.fill(fs[1] as number)); // the rest is faded
  });
});
