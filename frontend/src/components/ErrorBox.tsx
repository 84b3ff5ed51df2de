// Shows what went wrong in the server's own words (its "detail"), with per-field messages for 422s.
// "Retry" is offered only when trying again can help: not for a 404, a refusal or bad input.
import { ApiError } from "@/lib/api-error";

interface Props {
  error: unknown;
  title?: string;
  onRetry?: () => void;
}

/** Whether the same request could succeed if sent again (server trouble, a timeout, rate limiting). */
export function retryable(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

export function ErrorBox({ error, title = "Something went wrong", onRetry }: Props) {
  const api = error instanceof ApiError ? error : null;
  const message = error instanceof Error ? error.message : String(error);
  const heading = api?.status === 404 ? "Not found" : api?.status === 0 ? "Server unreachable" : title;
  return (
    <div className="alert alert-error" role="alert">
      <span className="alert-title">
        {heading}
        {api && api.status > 0 ? <span className="faint"> · HTTP {api.status}</span> : null}
      </span>
      {api && api.fields.length > 1 ? (
        <ul>
          {api.fields.map((f) => (
            <li key={`${f.field}:${f.message}`}>
              {f.field ? <strong>{f.field}</strong> : null}
              {f.field ? ": " : ""}
              {f.message}
            </li>
          ))}
        </ul>
      ) : (
        <span>{message}</span>
      )}
      {api?.retryAfter ? <span className="muted">Retry in {api.retryAfter}s.</span> : null}
      {onRetry && retryable(error) ? (
        <div className="alert-actions">
          <button type="button" className="btn btn-sm" onClick={onRetry}>
            Retry
          </button>
        </div>
      ) : null}
    </div>
  );
}
