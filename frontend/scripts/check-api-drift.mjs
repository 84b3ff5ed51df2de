// Generates src/api/schema.d.ts from openapi.json (`--write`, used by `npm run gen:api`), or checks
// that nothing drifted (default, `npm run check:api-drift`), so a backend change cannot silently break
// the UI's types. The checks:
//   1. src/api/schema.d.ts == openapi-typescript(openapi.json)  (always)
//   2. openapi.json == `perflab openapi`                          (when ../.venv/bin/perflab exists)
// Fix drift with: (cd .. && .venv/bin/perflab openapi > frontend/openapi.json) && npm run gen:api
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const schemaPath = join(root, "src", "api", "schema.d.ts");

// Fields with a server-side default are optional in request bodies; without this flag
// openapi-typescript would make callers send every defaulted field.
const GENERATOR_FLAGS = ["--default-non-nullable", "false"];

/** @param {string} output */
function generate(output) {
  execFileSync(
    join(root, "node_modules", ".bin", "openapi-typescript"),
    [join(root, "openapi.json"), "--output", output, ...GENERATOR_FLAGS],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
}

if (process.argv.includes("--write")) {
  generate(schemaPath);
  console.log(`wrote ${schemaPath}`);
  process.exit(0);
}

const tmp = mkdtempSync(join(tmpdir(), "perflab-api-drift-"));
let failed = false;
const MAX_DIFF_LINES = 120;

/** @param {string} a @param {string} b @param {string} label */
function compare(a, b, label) {
  const left = readFileSync(a, "utf8");
  const right = readFileSync(b, "utf8");
  if (left === right) {
    console.log(`ok: ${label}`);
    return;
  }
  failed = true;
  console.error(`DRIFT: ${label}`);
  let diff = "";
  try {
    execFileSync("diff", ["-u", a, b], { encoding: "utf8" });
  } catch (e) {
    // diff exits 1 when the files differ; its output is on the error object.
    diff = String(/** @type {{ stdout?: string }} */ (e).stdout ?? "");
  }
  const lines = diff.split("\n");
  console.error(lines.slice(0, MAX_DIFF_LINES).join("\n"));
  if (lines.length > MAX_DIFF_LINES) console.error(`... (${lines.length - MAX_DIFF_LINES} more diff lines)`);
}

try {
  const perflab = resolve(root, "..", ".venv", "bin", "perflab");
  if (existsSync(perflab) && process.env.PERFLAB_SKIP_LIVE_OPENAPI !== "1") {
    const live = join(tmp, "openapi.json");
    const out = execFileSync(perflab, ["openapi"], { cwd: resolve(root, ".."), maxBuffer: 64 << 20 });
    // Normalise the trailing newline so `perflab openapi > openapi.json` always compares equal.
    const text = out.toString("utf8").replace(/\n*$/, "\n");
    writeFileSync(live, text);
    const committed = join(tmp, "committed.json");
    writeFileSync(committed, readFileSync(join(root, "openapi.json"), "utf8").replace(/\n*$/, "\n"));
    compare(committed, live, "frontend/openapi.json matches `perflab openapi`");
  } else {
    console.log("skip: ../.venv/bin/perflab not installed; only checking schema.d.ts against openapi.json");
  }

  const generated = join(tmp, "schema.d.ts");
  generate(generated);
  compare(schemaPath, generated, "src/api/schema.d.ts matches openapi.json");
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

if (failed) {
  console.error(
    "\nRegenerate: (cd .. && .venv/bin/perflab openapi > frontend/openapi.json) && npm run gen:api",
  );
  process.exit(1);
}
