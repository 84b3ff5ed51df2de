// Turns a parsed summary (free-form JSON owned by the parsers) into display blocks: scalars as a list,
// flat objects (latency percentiles, socket errors) as a labelled group, lists of flat records
// (strace -c syscalls, pidstat per-process averages) as tables. New kinds display without UI changes.

export type Scalar = string | number | boolean | null;

export type Block =
  | { type: "fields"; key: string; fields: [string, Scalar][] }
  | { type: "table"; key: string; columns: string[]; rows: Record<string, Scalar>[] }
  | { type: "json"; key: string; value: unknown };

function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

function isFlatObject(v: unknown): v is Record<string, Scalar> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && Object.values(v).every(isScalar);
}

export function summaryBlocks(data: Record<string, unknown>): Block[] {
  const top: [string, Scalar][] = [];
  const blocks: Block[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (isScalar(value)) {
      top.push([key, value]);
    } else if (Array.isArray(value)) {
      if (value.length === 0) continue; // empty warnings, script output: nothing to show
      if (value.every(isFlatObject)) {
        // Columns in first-seen order; drop those that are empty in every row (pidstat's unused fields).
        const columns: string[] = [];
        for (const row of value) for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k);
        const used = columns.filter((c) => value.some((r) => r[c] !== null && r[c] !== undefined));
        blocks.push({ type: "table", key, columns: used, rows: value });
      } else if (value.every(isScalar)) {
        top.push([key, value.map((v) => String(v)).join(", ")]);
      } else {
        blocks.push({ type: "json", key, value });
      }
    } else if (isFlatObject(value)) {
      blocks.push({ type: "fields", key, fields: Object.entries(value) });
    } else {
      blocks.push({ type: "json", key, value });
    }
  }
  return top.length ? [{ type: "fields", key: "", fields: top }, ...blocks] : blocks;
}
