// TanStack Query setup: what to retry, and what to do when the session ends mid-use.
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "@/lib/api-error";

function shouldRetry(failureCount: number, error: unknown): boolean {
  // 4xx will not fix itself; 503 and network errors often do (database restart, server restart).
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

/**
 * @param onUnauthorized called when any request gets a 401 (expired or revoked session), so the
 *   app can send the user to /login?next=<here> instead of showing an error per widget.
 */
export function createQueryClient(onUnauthorized: () => void): QueryClient {
  const handle = (error: unknown) => {
    if (error instanceof ApiError && error.status === 401) onUnauthorized();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: handle }),
    mutationCache: new MutationCache({ onError: handle }),
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        retryDelay: (n, error) =>
          error instanceof ApiError && error.retryAfter
            ? error.retryAfter * 1000
            : Math.min(1000 * 2 ** n, 8000),
        staleTime: 10_000,
        refetchOnWindowFocus: true,
      },
      mutations: { retry: false },
    },
  });
}
