// "Run deleted · Undo": one notice at a time at the bottom of the window, for 10 s. Anything that can be
// undone calls showUndo(); AppLayout renders the notice, so it survives the navigation a delete causes.
import { useEffect, useSyncExternalStore } from "react";

interface Notice {
  id: number;
  message: string;
  undo: () => Promise<unknown>;
}

let current: Notice | null = null;
let nextId = 1;
const listeners = new Set<() => void>();

function emit(next: Notice | null) {
  current = next;
  for (const l of listeners) l();
}

export function showUndo(message: string, undo: () => Promise<unknown>): void {
  emit({ id: nextId++, message, undo });
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function UndoToast() {
  const notice = useSyncExternalStore(
    subscribe,
    () => current,
    () => null,
  );
  useEffect(() => {
    if (!notice) return;
    const t = window.setTimeout(() => {
      if (current?.id === notice.id) emit(null);
    }, 10_000);
    return () => window.clearTimeout(t);
  }, [notice]);
  if (!notice) return null;
  return (
    <div className="undo-toast" role="status">
      <span>{notice.message}</span>
      <button
        type="button"
        className="btn btn-sm"
        onClick={() => {
          emit(null);
          void notice.undo();
        }}
      >
        Undo
      </button>
      <button type="button" className="btn btn-sm btn-ghost" aria-label="Dismiss" onClick={() => emit(null)}>
        ×
      </button>
    </div>
  );
}
