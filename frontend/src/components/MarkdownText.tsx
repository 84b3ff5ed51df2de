// Markdown written by users in descriptions and hypotheses, rendered (sanitised, as in notes) wherever
// it is shown: in full on its own page, or as a compact excerpt (`excerpt`) in a list row. The renderer
// loads on first use so the list pages keep a small first download; until then the text shows as is.
import { lazy, Suspense } from "react";

const Markdown = lazy(() => import("./Markdown"));

interface Props {
  source: string;
  /** A list row: at most two lines, no headings or blocks taller than a line. */
  excerpt?: boolean;
  className?: string;
}

export function MarkdownText({ source, excerpt = false, className }: Props) {
  const cls = [excerpt ? "markdown-excerpt" : "", className ?? ""].filter(Boolean).join(" ");
  return (
    <Suspense fallback={<div className={`markdown ${cls}`}>{source.slice(0, 400)}</div>}>
      <Markdown source={source} className={cls || undefined} />
    </Suspense>
  );
}
