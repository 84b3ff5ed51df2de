// Text being typed survives a reload, a crash and an expired session: it is kept in localStorage under
// a key naming what it is for ("note:run:<id>"), and cleared once saved.
import { useCallback, useEffect, useState } from "react";

const PREFIX = "perflab.draft.";

export function readDraft(key: string): string | null {
  try {
    return window.localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

export function writeDraft(key: string, value: string): void {
  try {
    if (value) window.localStorage.setItem(PREFIX + key, value);
    else window.localStorage.removeItem(PREFIX + key);
  } catch {
    // Storage full or disabled (private mode): the draft lives only in memory then.
  }
}

/**
 * Like useState for a string, but restored from and written to the draft store (only while it differs
 * from `initial`: an untouched form leaves no draft). `key` null: no draft.
 */
export function useDraft(key: string | null, initial = ""): [string, (v: string) => void, () => void] {
  const [value, setValue] = useState(() => (key ? (readDraft(key) ?? initial) : initial));
  useEffect(() => {
    if (key) writeDraft(key, value === initial ? "" : value);
  }, [key, value, initial]);
  const clear = useCallback(() => {
    setValue("");
    if (key) writeDraft(key, "");
  }, [key]);
  return [value, setValue, clear];
}
