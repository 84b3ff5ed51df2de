// Enforces the frontend's import rules, which the type checker cannot see:
//   - a feature never imports another feature (share through components/ or lib/ instead);
//   - components/, lib/ and api/ never import features (they sit below them);
//   - recharts is imported only inside components/charts/ (one place to swap or tune it).
// The app/ layer composes features and may import any of them.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "..", "src");
const IMPORT_RE =
  /\b(?:import|export)\b[^'"]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

/** Path of an import inside src/ ("features/runs/api"), or null for packages. @param {string} file @param {string} spec */
function target(file, spec) {
  if (spec.startsWith("@/")) return spec.slice(2);
  if (spec.startsWith("."))
    return relative(src, resolve(dirname(file), spec))
      .split(sep)
      .join("/");
  return null;
}

const problems = [];
for (const file of walk(src)) {
  const rel = relative(src, file).split(sep).join("/");
  const [top, feature] = rel.split("/");
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? "";
    if ((spec === "recharts" || spec.startsWith("recharts/")) && !rel.startsWith("components/charts/")) {
      problems.push(`${rel}: imports recharts; use a wrapper from components/charts/`);
    }
    const to = target(file, spec);
    if (to === null) continue;
    const [toTop, toFeature] = to.split("/");
    if (toTop !== "features") continue;
    if (top === "features" && toFeature !== feature) {
      problems.push(`${rel}: imports features/${toFeature}; features must not import each other`);
    }
    if (top === "components" || top === "lib" || top === "api") {
      problems.push(`${rel}: imports features/${toFeature}; ${top}/ must not depend on features`);
    }
  }
}

if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log("ok: import boundaries (features isolated, recharts only in components/charts)");
