// Keyboard shortcuts of the flame graph pages: "/" focuses the search, Esc resets the zoom.
import { type RefObject, useEffect, useRef } from "react";

function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

export function useFlameKeys(search: RefObject<HTMLInputElement | null>, onEscape: () => void): void {
  const esc = useRef(onEscape);
  esc.current = onEscape;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "/" && !typingIn(e.target)) {
        e.preventDefault();
        search.current?.focus();
        search.current?.select();
      } else if (e.key === "Escape" && !document.querySelector("dialog[open]")) {
        esc.current();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [search]);
}
