import { describe, expect, it } from "vitest";
import { readableSearch } from "@/lib/url-state";
import {
  availableMetrics,
  chartsFor,
  defaultMetrics,
  entityColors,
  filterMetrics,
  groupByRole,
  metricId,
  parseMetricId,
  pickSeries,
  readMetrics,
  type SeriesMeta,
  serializeMetrics,
  seriesLabel,
  toggleMetric,
  writeMetrics,
} from "./metric-state";

let nextId = 1;
function s(
  role: string,
  source: string,
  metric: string,
  labels: Record<string, unknown> = {},
  meanV = 1,
): SeriesMeta {
  const id = nextId++;
  const key = Object.keys(labels).length
    ? `${metric}{${Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(",")}}`
    : metric;
  return { id, role, source, metric, key, labels, unit: "", points: 10, stats: { mean: meanV } };
}

const vmstat = (role: string) =>
  ["r", "b", "free", "in", "cs", "us", "sy", "id", "wa", "st"].map((m) => s(role, "vmstat", m));
const pidstat = (role: string, pids: number[]) =>
  pids.flatMap((pid) =>
    ["cpu_pct", "system_pct", "usr_pct", "cswch_per_s", "nvcswch_per_s"].map((m) =>
      s(role, "pidstat", m, { command: "nginx", pid }, pid),
    ),
  );

describe("metric ids in the URL", () => {
  it("parses role, source and metric, with dots in the metric", () => {
    expect(parseMetricId("proxy:vmstat.sy")).toEqual({ role: "proxy", source: "vmstat", metric: "sy" });
    expect(parseMetricId("proxy:netqtop.tx.bps")).toEqual({
      role: "proxy",
      source: "netqtop",
      metric: "tx.bps",
    });
    expect(parseMetricId("vmstat.sy")).toBeNull();
    expect(parseMetricId(":vmstat.sy")).toBeNull();
    expect(parseMetricId("proxy:vmstat")).toBeNull();
    expect(parseMetricId("proxy:vmstat.")).toBeNull();
  });

  it("reads a comma list, skipping junk and repeats; absent means defaults", () => {
    const p = new URLSearchParams("m=proxy:vmstat.sy,bad,proxy:pidstat.cpu_pct,proxy:vmstat.sy");
    expect(readMetrics(p)?.map(metricId)).toEqual(["proxy:vmstat.sy", "proxy:pidstat.cpu_pct"]);
    expect(readMetrics(new URLSearchParams(""))).toBeNull();
    expect(readMetrics(new URLSearchParams("m="))).toEqual([]);
  });

  it("round-trips and keeps links short when the view is the default", () => {
    const list = [
      { role: "proxy", source: "vmstat", metric: "sy" },
      { role: "proxy", source: "pidstat", metric: "cpu_pct" },
    ];
    expect(serializeMetrics(list)).toBe("proxy:vmstat.sy,proxy:pidstat.cpu_pct");
    const base = new URLSearchParams("x=1");
    const written = writeMetrics(base, list, []);
    expect(written.get("m")).toBe("proxy:vmstat.sy,proxy:pidstat.cpu_pct");
    expect(written.get("x")).toBe("1");
    expect(readMetrics(written)).toEqual(list);
    expect(writeMetrics(written, list, list).has("m")).toBe(false);
    expect(writeMetrics(base, [], list).get("m")).toBe("");
  });

  it("writes links people can read, which parse back the same", () => {
    const list = [
      { role: "proxy", source: "vmstat", metric: "sy" },
      { role: "proxy", source: "netqtop", metric: "tx.bps" },
    ];
    const search = readableSearch(writeMetrics(new URLSearchParams("q=a b&x=1%2C2"), list, []));
    expect(search).toBe("?q=a+b&x=1,2&m=proxy:vmstat.sy,proxy:netqtop.tx.bps");
    const back = new URLSearchParams(search);
    expect(readMetrics(back)).toEqual(list);
    expect(back.get("x")).toBe("1,2");
    expect(readableSearch(new URLSearchParams())).toBe("");
  });

  it("toggles a metric in or out", () => {
    const sy = { role: "proxy", source: "vmstat", metric: "sy" };
    const us = { role: "proxy", source: "vmstat", metric: "us" };
    expect(toggleMetric([sy], us)).toEqual([sy, us]);
    expect(toggleMetric([sy, us], sy)).toEqual([us]);
  });
});

describe("series grouped per role", () => {
  const series = [...pidstat("proxy", [794, 821]), ...vmstat("upstream"), ...vmstat("proxy")];
  const available = availableMetrics(series, ["proxy", "upstream"]);

  it("makes one metric per role/source/metric, roles in host order, vmstat first", () => {
    const roles = groupByRole(available).map(([r]) => r);
    expect(roles).toEqual(["proxy", "upstream"]);
    const proxy = available.filter((m) => m.role === "proxy").map((m) => m.id);
    expect(proxy.slice(0, 3)).toEqual(["proxy:vmstat.us", "proxy:vmstat.sy", "proxy:vmstat.id"]);
    expect(available.find((m) => m.id === "proxy:pidstat.cpu_pct")?.series).toHaveLength(2);
  });

  it("defaults to vmstat us/sy/id/wa/st, in, cs, r and pidstat CPU, system and switches", () => {
    const ids = defaultMetrics(available).map(metricId);
    expect(ids.filter((i) => i.startsWith("proxy:"))).toEqual([
      "proxy:vmstat.us",
      "proxy:vmstat.sy",
      "proxy:vmstat.id",
      "proxy:vmstat.wa",
      "proxy:vmstat.st",
      "proxy:vmstat.in",
      "proxy:vmstat.cs",
      "proxy:vmstat.r",
      "proxy:pidstat.cpu_pct",
      "proxy:pidstat.system_pct",
      "proxy:pidstat.cswch_per_s",
      "proxy:pidstat.nvcswch_per_s",
    ]);
    expect(ids).not.toContain("proxy:vmstat.free");
  });

  it("groups related metrics into one chart, with cs on a second axis", () => {
    const charts = chartsFor(defaultMetrics(available), available).filter((c) => c.role === "proxy");
    expect(charts.map((c) => c.title)).toEqual([
      "CPU %",
      "Interrupts & context switches /s",
      "Runnable processes (r)",
      "%CPU per process",
      "%system per process",
      "Context switches /s per process",
    ]);
    const cpu = charts[0];
    expect(cpu?.yDomain).toEqual([0, 100]);
    expect(cpu?.lines.map((l) => l.ref.metric)).toEqual(["us", "sy", "id", "wa", "st"]);
    expect(charts[1]?.lines.map((l) => [l.ref.metric, l.axis])).toEqual([
      ["in", "left"],
      ["cs", "right"],
    ]);
    expect(charts[5]?.lines.map((l) => l.dashed)).toEqual([false, true]);
  });

  it("keeps a chart for a metric the run does not have (yet), with no series", () => {
    const charts = chartsFor([{ role: "lb", source: "vmstat", metric: "sy" }], available);
    expect(charts).toHaveLength(1);
    expect(charts[0]?.lines[0]?.info).toBeNull();
    expect(pickSeries(charts[0] as (typeof charts)[0]).picked).toEqual([]);
  });

  it("labels per process and picks the busiest processes first", () => {
    const many = pidstat("proxy", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const av = availableMetrics(many);
    const [chart] = chartsFor([{ role: "proxy", source: "pidstat", metric: "cpu_pct" }], av);
    const { picked, total } = pickSeries(chart as NonNullable<typeof chart>, 8);
    expect(total).toBe(12);
    expect(picked.map((p) => p.label)).toEqual([
      "nginx 12",
      "nginx 11",
      "nginx 10",
      "nginx 9",
      "nginx 8",
      "nginx 7",
      "nginx 6",
      "nginx 5",
    ]);
    const [cs] = chartsFor(
      [
        { role: "proxy", source: "pidstat", metric: "cswch_per_s" },
        { role: "proxy", source: "pidstat", metric: "nvcswch_per_s" },
      ],
      availableMetrics(pidstat("proxy", [794])),
    );
    expect(pickSeries(cs as NonNullable<typeof cs>).picked.map((p) => p.label)).toEqual([
      "nginx 794 · vol",
      "nginx 794 · invol",
    ]);
  });

  it("names netqtop series by queue", () => {
    expect(seriesLabel(s("proxy", "netqtop", "tx.bps", { queue: 3 }), false)).toBe("queue 3");
    expect(seriesLabel(s("proxy", "netqtop", "tx.bps", { queue: "total" }), false)).toBe("total");
    expect(seriesLabel(s("proxy", "vmstat", "sy"), false)).toBe("sy");
  });

  it("searches metrics by name, title and process", () => {
    const ids = (q: string) => filterMetrics(available, q).map((m) => m.id);
    expect(ids("upstream sy")).toEqual(["upstream:vmstat.sy"]);
    expect(ids("context")).toContain("proxy:pidstat.cswch_per_s");
    expect(ids("821")).toContain("proxy:pidstat.cpu_pct");
    expect(ids("821")).not.toContain("proxy:vmstat.sy");
    expect(ids("")).toHaveLength(available.length);
  });
});

describe("colours", () => {
  it("follow the process, not its rank, and pair voluntary with involuntary", () => {
    const av = availableMetrics(pidstat("proxy", [823, 794, 821]));
    const [cs] = chartsFor(
      [
        { role: "proxy", source: "pidstat", metric: "cswch_per_s" },
        { role: "proxy", source: "pidstat", metric: "nvcswch_per_s" },
      ],
      av,
    );
    const colors = entityColors(cs as NonNullable<typeof cs>);
    expect([...colors.entries()]).toEqual([
      ["command=nginx,pid=794", 0],
      ["command=nginx,pid=821", 1],
      ["command=nginx,pid=823", 2],
    ]);
    const [cpu] = chartsFor(
      defaultMetrics(availableMetrics(vmstat("proxy"))),
      availableMetrics(vmstat("proxy")),
    );
    expect([...entityColors(cpu as NonNullable<typeof cpu>).keys()]).toEqual(["us", "sy", "id", "wa", "st"]);
  });
});
