// What the Import page keeps in the browser: the files and fields being prepared (so a reload or an
// expired session loses nothing) and, per tool, the role last chosen (so strace-c goes to "proxy"
// every time once chosen, the way the agent names it).
import { readDraft, writeDraft } from "@/lib/use-draft";
import type { ImportEntry } from "./import-files";

export interface ImportDraft {
  entries: ImportEntry[];
  experiment: string;
  label: string;
  hypothesis: string;
}

// localStorage holds about 5 MB per origin: larger drafts are not kept rather than failing halfway.
const MAX_DRAFT_CHARS = 3_000_000;

export function loadImportDraft(slug: string): ImportDraft | null {
  const raw = readDraft(`import:${slug}`);
  if (!raw) return null;
  try {
    const d = JSON.parse(raw) as Partial<ImportDraft>;
    if (!Array.isArray(d.entries)) return null;
    return {
      entries: d.entries,
      experiment: d.experiment ?? "",
      label: d.label ?? "",
      hypothesis: d.hypothesis ?? "",
    };
  } catch {
    return null;
  }
}

/** Saves the draft; false when it is too large to keep (the page says so). */
export function saveImportDraft(slug: string, draft: ImportDraft): boolean {
  const empty = !draft.entries.length && !draft.experiment && !draft.label && !draft.hypothesis;
  const text = empty ? "" : JSON.stringify(draft);
  if (text.length > MAX_DRAFT_CHARS) {
    writeDraft(`import:${slug}`, "");
    return false;
  }
  writeDraft(`import:${slug}`, text);
  return true;
}

export function rememberRole(slug: string, kind: string, role: string | null): void {
  writeDraft(`import-role:${slug}:${kind}`, role ?? "");
}

export function rememberedRole(slug: string, kind: string): string | null {
  return readDraft(`import-role:${slug}:${kind}`) || null;
}
