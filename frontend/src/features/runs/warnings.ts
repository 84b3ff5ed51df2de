// Parser warnings are notes about the paste, not about the run's validity: said in plain language
// ("the paste has no latency line; latency figures are missing"), not as parser field names.

const MISSING: Record<string, string> = {
  threads: "the paste has no “N threads and M connections” line; threads and connections are missing",
  requests: "the paste has no “N requests in T, B read” line; the request count and bytes read are missing",
  requests_per_sec: "the paste has no Requests/sec line; requests per second is missing",
  transfer_per_sec_bytes: "the paste has no Transfer/sec line; transfer per second is missing",
  latency_ms: "the paste has no latency line; latency figures are missing",
  req_per_sec_per_thread: "the paste has no Req/Sec line; per-thread request rates are missing",
};

const NULL_FIELD = /^no .* line \(truncated paste\?\): (\w+) is null$/;

/** A wrk parser warning as a reader would say it; unknown warnings are shown as they are. */
export function plainWarning(warning: string): string {
  const m = NULL_FIELD.exec(warning);
  const key = m?.[1];
  if (key && MISSING[key]) return MISSING[key];
  if (warning.startsWith("latency distribution incomplete"))
    return "the latency distribution is cut short; some percentiles are missing";
  if (warning.startsWith("0 requests completed"))
    return "no request completed, so there are no latency figures";
  return warning;
}
