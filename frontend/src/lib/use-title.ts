// Each page names itself in the browser tab and history ("default · run 2 · perflab"), so a row of
// perflab tabs can be told apart and a bookmark says what it opens.
import { useEffect } from "react";

export const APP_NAME = "perflab";

/** "a · b · perflab" from the non-empty parts, most specific first. */
export function pageTitle(...parts: (string | null | undefined)[]): string {
  return [...parts.filter((p): p is string => !!p && p.trim() !== ""), APP_NAME].join(" · ");
}

/** Sets the document title while the page is shown; parts still loading are left out. */
export function useTitle(...parts: (string | null | undefined)[]): void {
  const title = pageTitle(...parts);
  useEffect(() => {
    document.title = title;
  }, [title]);
}
