// The one error type the UI deals with. Every API error has the body {"error": code, "detail": ...};
// detail is a sentence, or for 422 FastAPI's list of {loc, msg}, which we turn into per-field messages.

export interface FieldError {
  /** Dotted path without the "body"/"query"/"path" prefix, e.g. "name" or "scopes.0". */
  field: string;
  message: string;
  /** The message names its field in plain words ("file 1 (a.log) contains a NUL byte ..."): shown as is. */
  named?: boolean;
}

// The server's `type` for refusals whose message is a whole sentence naming the field (schemas_base.py).
const NAMED_TYPES = new Set(["unstorable_value"]);

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: unknown;
  readonly fields: FieldError[];
  readonly retryAfter: number | null;

  constructor(status: number, code: string, detail: unknown, retryAfter: number | null = null) {
    const fields = fieldErrors(detail);
    super(describeDetail(detail, fields) || defaultMessage(status));
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.fields = fields;
    this.retryAfter = retryAfter;
  }

  /** Builds an ApiError from a failed response and its parsed body (JSON, text or nothing). */
  static fromResponse(response: Response, body: unknown): ApiError {
    const retry = response.headers.get("Retry-After");
    const retryAfter = retry !== null && /^\d+$/.test(retry) ? Number.parseInt(retry, 10) : null;
    if (body !== null && typeof body === "object") {
      const b = body as { error?: unknown; detail?: unknown };
      const code =
        typeof b.error === "string" ? b.error : response.status === 422 ? "validation_error" : "error";
      return new ApiError(response.status, code, b.detail ?? null, retryAfter);
    }
    const text =
      typeof body === "string" && body.trim() && !body.trimStart().startsWith("<") ? body.trim() : null;
    return new ApiError(response.status, "error", text, retryAfter);
  }

  static network(cause: unknown): ApiError {
    const err = new ApiError(0, "network_error", "Cannot reach the perflab server. Is it running?");
    err.cause = cause;
    return err;
  }

  fieldMessage(field: string): string | undefined {
    return this.fields.find((f) => f.field === field)?.message;
  }
}

const LOC_PREFIXES = new Set(["body", "query", "path", "header", "cookie"]);

export function fieldErrors(detail: unknown): FieldError[] {
  if (!Array.isArray(detail)) return [];
  const out: FieldError[] = [];
  for (const item of detail) {
    if (item === null || typeof item !== "object") continue;
    const { loc, msg, type } = item as { loc?: unknown; msg?: unknown; type?: unknown };
    if (typeof msg !== "string") continue;
    const parts = Array.isArray(loc) ? loc.map(String) : [];
    if (parts.length > 1 && parts[0] !== undefined && LOC_PREFIXES.has(parts[0])) parts.shift();
    const error: FieldError = { field: parts.join("."), message: stripValueError(msg) };
    if (typeof type === "string" && NAMED_TYPES.has(type)) error.named = true;
    out.push(error);
  }
  return out;
}

// Pydantic prefixes messages of custom validators with "Value error, "; users need only the rest.
function stripValueError(msg: string): string {
  return msg.replace(/^Value error, /, "");
}

/** One human sentence for an error box. */
export function describeDetail(detail: unknown, fields: FieldError[] = fieldErrors(detail)): string {
  if (typeof detail === "string") return detail;
  if (fields.length > 0)
    return fields.map((f) => (f.field && !f.named ? `${f.field}: ${f.message}` : f.message)).join("; ");
  if (detail !== null && detail !== undefined && typeof detail === "object") {
    try {
      return JSON.stringify(detail);
    } catch {
      return "";
    }
  }
  return "";
}

function defaultMessage(status: number): string {
  if (status === 401) return "Your session has ended. Log in again.";
  if (status === 403) return "You do not have access to this.";
  if (status === 404) return "Not found.";
  if (status === 503) return "The server is temporarily unavailable. Retry shortly.";
  if (status >= 500) return `The server failed (HTTP ${status}).`;
  return `Request failed (HTTP ${status}).`;
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
