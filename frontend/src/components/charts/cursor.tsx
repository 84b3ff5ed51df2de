// A shared cursor: hovering (or arrow-keying) one chart puts the same time on every chart inside the
// same provider. Only the cursor overlays and legends subscribe, so moving the mouse never re-renders
// the plotted lines.
import { createContext, type ReactNode, useContext, useState, useSyncExternalStore } from "react";

export interface CursorStore {
  get(): number | null;
  set(t: number | null): void;
  subscribe(listener: () => void): () => void;
}

export function createCursorStore(): CursorStore {
  let value: number | null = null;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(t) {
      if (t === value) return;
      value = t;
      for (const l of listeners) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const CursorContext = createContext<CursorStore | null>(null);

/** Charts inside share one cursor (all the charts of a run). */
export function ChartCursorProvider({ children }: { children: ReactNode }) {
  const [store] = useState(createCursorStore);
  return <CursorContext.Provider value={store}>{children}</CursorContext.Provider>;
}

/** The provider's store, or a private one for a chart on its own. */
export function useCursorStore(): CursorStore {
  const shared = useContext(CursorContext);
  const [own] = useState(createCursorStore);
  return shared ?? own;
}

export function useCursorTime(store: CursorStore): number | null {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}
