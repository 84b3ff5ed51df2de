// Who is logged in, and logging in and out.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { api, CSRF_COOKIE, type Schemas, unwrap } from "@/api/client";
import { readCookie } from "@/lib/cookies";
import { takeEarly } from "@/lib/early-fetch";

export type Me = Schemas["Me"];

export const authKeys = {
  me: ["auth", "me"] as const,
};

export function meQueryOptions() {
  return queryOptions({
    queryKey: authKeys.me,
    queryFn: ({ signal }) => takeEarly("me", () => unwrap(api.GET("/api/auth/me", { signal }))),
    // Who you are rarely changes within a tab; the session cookie outlives this cache anyway.
    staleTime: 5 * 60_000,
    retry: false,
  });
}

/**
 * Whether a session may exist: the server sets a readable CSRF cookie beside the HttpOnly session
 * cookie. Without it, asking /api/auth/me would only earn a 401 that browsers log as a console error.
 */
export function mayHaveSession(cookies: string = typeof document === "undefined" ? "" : document.cookie) {
  return readCookie(CSRF_COOKIE, cookies) !== null;
}

export function useLogin() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas["LoginRequest"]) => unwrap(api.POST("/api/auth/login", { body })),
    onSuccess: (me) => {
      // A new user may have logged in over an old session: drop everything cached for the old one.
      qc.clear();
      qc.setQueryData(authKeys.me, me);
    },
  });
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST("/api/auth/logout")),
    onSettled: () => qc.clear(),
  });
}
