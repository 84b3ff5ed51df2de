// Whether the session ended while a page was open. The page stays as it is (with whatever was being
// typed) and a log-in dialog opens over it; logging in again refetches what failed.
import { useSyncExternalStore } from "react";

let expired = false;
const listeners = new Set<() => void>();

export function setSessionExpired(value: boolean): void {
  if (expired === value) return;
  expired = value;
  for (const l of listeners) l();
}

export function useSessionExpired(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => expired,
    () => false,
  );
}
