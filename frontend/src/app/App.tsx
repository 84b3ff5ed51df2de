// Composition root: one QueryClient, one router, and the rule that a 401 anywhere means "log in again".
import { type QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { RouterProvider } from "react-router";
import { authKeys, loginPath, setSessionExpired } from "@/features/auth";
import { CompareFindings, RunFindings } from "@/features/findings";
import { type Slots, SlotsProvider } from "@/lib/slots";
import { createQueryClient } from "./query-client";
import { createAppRouter } from "./router";

const SLOTS: Slots = { RunFindings, CompareFindings };

export function App() {
  const [{ queryClient, router }] = useState(() => {
    // The router's loaders prefetch into the client; the client's 401 handler navigates the router
    // (it runs only after both exist).
    const queryClient: QueryClient = createQueryClient(() => {
      const here = router.state.location;
      // The login form's own 401 ("wrong password") is shown on the form, not redirected.
      if (here.pathname === "/login") return;
      // Logged in until now: a dialog over the page, which keeps what was being typed (drafts too).
      if (queryClient.getQueryData(authKeys.me)) {
        setSessionExpired(true);
        return;
      }
      queryClient.removeQueries({ queryKey: authKeys.me });
      void router.navigate(loginPath(here), { replace: true });
    });
    const router = createAppRouter(queryClient);
    return { queryClient, router };
  });
  return (
    <QueryClientProvider client={queryClient}>
      <SlotsProvider value={SLOTS}>
        <RouterProvider router={router} />
      </SlotsProvider>
    </QueryClientProvider>
  );
}
