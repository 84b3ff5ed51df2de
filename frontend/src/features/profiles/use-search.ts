// The compiled search of a page: one regex for every view, its error, and its matches per tree.
import { useMemo } from "react";
import { compileSearch, type FrameTree, type SearchResult, searchTree } from "@/lib/flamegraph";

export function useCompiledSearch(q: string): { regex: RegExp | null; error: string | null } {
  return useMemo(() => {
    const c = compileSearch(q);
    return c.ok ? { regex: c.regex, error: null } : { regex: null, error: c.error };
  }, [q]);
}

export function useSearchResult(tree: FrameTree | undefined, regex: RegExp | null): SearchResult | null {
  return useMemo(() => (tree && regex ? searchTree(tree, regex) : null), [tree, regex]);
}
