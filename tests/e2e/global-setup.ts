// Starts a real perflab for the e2e run and stops it afterwards:
//   - builds the UI (frontend/dist) so the tests see the current source;
//   - with PERFLAB_TEST_DATABASE_URL, creates a fresh, uniquely named database on that server (dropped
//     after); without it, perflab starts its embedded PostgreSQL in a temporary PERFLAB_HOME;
//   - runs `.venv/bin/perflab serve` on a free port with a known admin, waits for /api/health.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// Playwright loads this file as CommonJS (NODE_PATH resolves @playwright/test from frontend/), so
// __dirname, not import.meta.
const repo = resolve(__dirname, "..", "..");
const frontend = join(repo, "frontend");

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? res(addr.port) : rej(new Error("no port"))));
    });
  });
}

function psql(adminUrl: string, sql: string): void {
  execFileSync("psql", [adminUrl, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function waitForHealth(
  base: string,
  server: ChildProcess,
  logFile: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    if (server.exitCode !== null) break;
    try {
      const r = await fetch(`${base}/api/health`);
      const body = await r.text();
      if (r.ok) return;
      last = `HTTP ${r.status} ${body}`;
    } catch (e) {
      last = String(e);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const log = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n") : "";
  throw new Error(
    `perflab did not become healthy at ${base} (exit code ${server.exitCode}, last: ${last}).\n--- server log ---\n${log}`,
  );
}

function stop(server: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((res) => {
    if (server.exitCode !== null || server.pid === undefined) return res();
    const timer = setTimeout(() => {
      // It ignored SIGTERM: kill its whole process group (uvicorn plus any embedded PostgreSQL).
      try {
        process.kill(-(server.pid as number), "SIGKILL");
      } catch {
        // already gone
      }
    }, timeoutMs);
    server.once("exit", () => {
      clearTimeout(timer);
      res();
    });
    try {
      // SIGTERM lets perflab shut down cleanly, including an embedded PostgreSQL.
      process.kill(server.pid, "SIGTERM");
    } catch {
      clearTimeout(timer);
      res();
    }
  });
}

/**
 * Stops an embedded PostgreSQL left behind in `pgdata` (perflab serve should stop it on exit; this makes
 * sure a test run never leaks one, whose data directory we are about to delete).
 */
async function stopEmbeddedPostgres(pgdata: string): Promise<void> {
  const pidFile = join(pgdata, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
  if (!Number.isSafeInteger(pid) || pid <= 1) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  console.warn(
    `e2e teardown: embedded PostgreSQL (pid ${pid}) still running after perflab exited; stopping it`,
  );
  process.kill(pid, "SIGINT"); // PostgreSQL's "fast" shutdown
  for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 200));
  if (alive()) process.kill(pid, "SIGKILL");
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const perflab = process.env.PERFLAB_BIN ?? join(repo, ".venv", "bin", "perflab");
  if (!existsSync(perflab)) throw new Error(`${perflab} not found: run \`make install\` first`);

  if (process.env.PERFLAB_E2E_SKIP_BUILD !== "1") {
    execFileSync(join(frontend, "node_modules", ".bin", "vite"), ["build", "--logLevel", "warn"], {
      cwd: frontend,
      stdio: "inherit",
    });
  }

  const home = mkdtempSync(join(tmpdir(), "perflab-e2e-"));
  const logFile = join(home, "server.log");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const email = "e2e-admin@perflab.test";
  const password = `e2e-${randomBytes(12).toString("hex")}`;

  const adminUrl = process.env.PERFLAB_TEST_DATABASE_URL;
  const dbName = `perflab_e2e_${Date.now()}_${randomBytes(3).toString("hex")}`;
  let databaseUrl: string | undefined;
  if (adminUrl) {
    psql(adminUrl, `CREATE DATABASE "${dbName}"`);
    databaseUrl = withDatabase(adminUrl, dbName);
  }

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PERFLAB_ENV: "test",
    PERFLAB_HOME: home,
    PERFLAB_HOST: "127.0.0.1",
    PERFLAB_PORT: String(port),
    PERFLAB_ADMIN_EMAIL: email,
    PERFLAB_ADMIN_PASSWORD: password,
    PERFLAB_FRONTEND_DIST: join(frontend, "dist"),
    PERFLAB_PUBLIC_URL: base,
  };
  if (databaseUrl) env.PERFLAB_DATABASE_URL = databaseUrl;
  else delete env.PERFLAB_DATABASE_URL;

  const out = openSync(logFile, "a");
  const server = spawn(perflab, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd: repo,
    env,
    stdio: ["ignore", out, out],
    detached: true, // its own process group, so teardown can reach every child
  });

  const teardown = async () => {
    await stop(server, 15_000);
    if (!adminUrl) await stopEmbeddedPostgres(join(home, "pgdata"));
    if (adminUrl) {
      try {
        psql(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      } catch (e) {
        console.error(`could not drop ${dbName}:`, e);
      }
    }
    if (process.env.PERFLAB_E2E_KEEP !== "1") rmSync(home, { recursive: true, force: true });
    else console.log(`kept ${home} (server log: ${logFile})`);
  };

  try {
    // The embedded PostgreSQL's first start (initdb) takes a while on a 2-core machine.
    await waitForHealth(base, server, logFile, adminUrl ? 60_000 : 180_000);
  } catch (e) {
    await teardown();
    throw e;
  }

  process.env.PERFLAB_E2E_BASE_URL = base;
  process.env.PERFLAB_E2E_ADMIN_EMAIL = email;
  process.env.PERFLAB_E2E_ADMIN_PASSWORD = password;
  return teardown;
}
