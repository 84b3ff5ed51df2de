// Whatever an engineer saved becomes evidence: files no parser knows are kept as downloadable attachments,
// cgroup files and lscpu become the run's host facts (and the rules read them), and the run page shows the
// USE checklist: which checks ran, which found something, and what to collect for the missing ones.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { csrfHeaders, logIn, watchConsole } from "./session";

const fixtures = resolve(__dirname, "..", "fixtures");
const run1 = join(fixtures, "captures", "nginx-proxy-buffers", "default", "run1");
const CLIENT_LOG = "2026-11-25T10:01:02.114Z INFO client: fetched /server.pcap in 1.02s (3602590 bytes)\n";

async function createProject(page: Page): Promise<string> {
  const slug = `evidence-${Date.now().toString(36)}`;
  const r = await page.request.post("/api/projects", {
    data: { name: slug, slug },
    headers: await csrfHeaders(page.context()),
  });
  expect(r.status()).toBe(201);
  return slug;
}

test("an import keeps unknown files as attachments and the run page shows facts and the USE checklist", async ({
  page,
}) => {
  await logIn(page);
  const errors = watchConsole(page);
  const slug = await createProject(page);
  const file = (name: string, path: string, role?: string) => ({
    name,
    content: readFileSync(path, "utf8"),
    role,
  });
  const r = await page.request.post(`/api/projects/${slug}/imports`, {
    headers: await csrfHeaders(page.context()),
    data: {
      experiment: "in a cpuset",
      files: [
        file("wrk.txt", join(run1, "wrk.txt")),
        file("vmstat.txt", join(run1, "vmstat.txt"), "proxy"),
        file("nginx.conf", join(fixtures, "findings", "worker-affinity", "nginx.conf"), "proxy"),
        file("cpuset.cpus", join(fixtures, "host-facts", "files", "v1-cpuset-1", "cpuset.cpus"), "proxy"),
        file("lscpu.txt", join(fixtures, "host-facts", "files", "lscpu.txt"), "proxy"),
        { name: "client.log", content: CLIENT_LOG },
      ],
    },
  });
  expect(r.status()).toBe(201);
  const { run_id: runId } = await r.json();

  await page.goto(`/p/${slug}/runs/${runId}`);
  // the unknown file: listed with its note, and the link downloads exactly what was imported
  const attachments = page.getByTestId("run-attachments");
  await expect(attachments).toContainText("not recognised: no parser knows this output");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    attachments.getByRole("link", { name: "client.log" }).click(),
  ]);
  expect(readFileSync((await download.path()) ?? "", "utf8")).toBe(CLIENT_LOG);
  // the facts read from cpuset.cpus and lscpu, with the hosts
  await expect(page.getByTestId("imported-host-facts")).toContainText("cgroup_cpuset 1");
  await expect(page.getByTestId("imported-host-facts")).toContainText("cpus_online 2");
  // and the rules read them like an agent's
  const findings = page.getByTestId("run-findings");
  await expect(findings).toContainText(
    "worker_cpu_affinity auto binds workers to CPU #0, outside the cpuset 1",
  );

  // the USE checklist: vmstat let the CPU checks run; no nstat, so network saturation says what to add
  await findings.getByText("USE checklist").click();
  await expect(page.getByTestId("use-CPU-utilisation")).toHaveAttribute("data-status", "silent");
  await expect(page.getByTestId("use-CPU-saturation")).toHaveAttribute("data-status", "finding");
  const net = page.getByTestId("use-network-saturation");
  await expect(net).toHaveAttribute("data-status", "missing");
  await expect(net).toContainText(
    "add `--collect nstat` (or import `nstat -az` / `netstat -s`) to see retransmits",
  );
  expect(errors).toEqual([]);
});
