// "Has this element come near the viewport yet?" Sections below the fold fetch and render their
// charts only then, so a long page costs what the reader actually looks at. Once seen, stays seen
// (scrolling back up must not drop a chart and fetch it again).
import { type RefObject, useEffect, useState } from "react";

export function useInView<T extends Element>(ref: RefObject<T | null>, rootMargin = "300px"): boolean {
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    if (seen) return;
    const el = ref.current;
    if (!el) return;
    // Without IntersectionObserver (very old browsers, some test environments) just render.
    if (typeof IntersectionObserver === "undefined") {
      setSeen(true);
      return;
    }
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setSeen(true);
          io.disconnect();
        }
      },
      { rootMargin },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [ref, rootMargin, seen]);
  return seen;
}
