// One file to import: what the server detected and parsed from it (or why it could not), its role in
// the run (editable), and for pasted text the text itself, re-previewed as it is edited.
import type { UseQueryResult } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { Skeleton } from "@/components/Skeleton";
import { formatBytes } from "@/lib/format";
import { useDebouncedValue } from "@/lib/use-debounced-value";
import type { FilePreview } from "../api";
import { type ImportEntry, KINDS, previewFacts, ROLE_SUGGESTIONS, roleError } from "../import-files";

interface Props {
  entry: ImportEntry;
  preview: UseQueryResult<FilePreview>;
  /** What the server said about this file when saving failed. */
  saveError: string | undefined;
  roles: string[];
  onChange: (patch: Partial<ImportEntry>) => void;
  onRemove: () => void;
}

export function FileCard({ entry, preview, saveError, roles, onChange, onRemove }: Props) {
  const p = preview.data;
  const kindId = useId();
  const roleId = useId();
  const listId = useId();
  const roleProblem = roleError(entry.role);
  const detected = p?.kind ?? null;
  const ok = p?.ok === true;
  const facts = ok && p ? previewFacts(p.kind, p.preview ?? {}) : [];
  const status = preview.isPending ? "pending" : preview.error ? "error" : ok ? "ok" : "bad";

  return (
    <li className="import-file card" data-testid={`import-file-${entry.name}`} data-status={status}>
      <div className="import-file-head">
        <div className="import-file-name">
          <span className="mono">{entry.name}</span>
          <span className="faint">
            {formatBytes(entry.size)}
            {entry.encoding === "base64" ? " · gzip" : ""}
            {entry.origin === "paste" ? " · pasted" : ""}
          </span>
        </div>
        <div className="import-file-controls">
          {preview.isPending ? (
            <span className="badge" data-testid="detected-kind">
              detecting…
            </span>
          ) : p?.attachment && !p.parts ? (
            <span className="badge badge-warn" data-testid="detected-kind" title={p.note ?? undefined}>
              {detected ? `${detected}: attachment` : "attachment"}
            </span>
          ) : detected ? (
            <span
              className={`badge ${ok ? "badge-good" : "badge-bad"}`}
              data-testid="detected-kind"
              title={entry.kind === "auto" ? "Detected from the content" : "Kind chosen by you"}
            >
              {detected}
            </span>
          ) : (
            <span className="badge badge-bad" data-testid="detected-kind">
              unknown
            </span>
          )}
          <label className="sr-only" htmlFor={kindId}>
            Kind of {entry.name}
          </label>
          <select
            id={kindId}
            className="select"
            value={entry.kind}
            onChange={(e) => onChange({ kind: e.target.value, version: entry.version + 1 })}
          >
            <option value="auto">
              auto-detect{entry.kind === "auto" && detected ? ` (${detected})` : ""}
            </option>
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.kind}
              </option>
            ))}
          </select>
          <label className="field-label" htmlFor={roleId}>
            Role
          </label>
          <input
            id={roleId}
            className="input role-input"
            list={listId}
            value={entry.role ?? p?.role ?? ""}
            placeholder={p?.role ?? "target"}
            onChange={(e) => {
              // Typing the default back (or nothing) keeps the default: same content hash as the CLI.
              const v = e.target.value.trim();
              onChange({ role: v === "" || v === p?.role ? null : v });
            }}
            aria-invalid={roleProblem ? true : undefined}
            aria-label={`Role of ${entry.name}`}
            title="The host role these numbers belong to (loadgen, proxy, upstream…)"
          />
          <datalist id={listId}>
            {[...new Set([...roles, ...ROLE_SUGGESTIONS])].map((r) => (
              <option key={r} value={r} />
            ))}
          </datalist>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={onRemove}
            aria-label={`Remove ${entry.name}`}
            title="Remove this file"
          >
            Remove
          </button>
        </div>
      </div>
      {roleProblem ? <div className="field-error">Role: {roleProblem}</div> : null}
      <div className="import-file-body">
        {preview.isPending ? (
          <Skeleton width="60%" />
        ) : preview.error ? (
          <p className="import-error" role="alert">
            {preview.error.message}
          </p>
        ) : p?.parts ? (
          <ul
            className="import-parts"
            aria-label={`Outputs found in ${entry.name}`}
            data-testid="import-parts"
          >
            {p.parts.map((part) => (
              <li key={part.start_line ?? 0} data-testid="import-part">
                <span className={`badge ${part.kind && part.ok ? "badge-good" : "badge-bad"}`}>
                  {part.kind ?? "not recognised"}
                </span>{" "}
                lines {part.start_line}–{part.end_line}
                {part.attachment
                  ? " · kept as an attachment"
                  : part.imported === false
                    ? " · not imported"
                    : ""}
                {part.kind && part.ok
                  ? previewFacts(part.kind, part.preview ?? {})
                      .map((f) => ` · ${f.label} ${f.value}`)
                      .join("")
                  : ""}
                {part.error ? ` · ${part.error}` : ""}
              </li>
            ))}
          </ul>
        ) : p?.attachment ? (
          <p className="import-note" data-testid="attachment-note">
            {p.note}
          </p>
        ) : p && !p.ok ? (
          <p className="import-error" role="alert">
            {p.error ?? "This file could not be parsed."}
            {entry.kind === "auto" ? " If it is one of the kinds below, choose its kind above." : ""}
          </p>
        ) : (
          <dl className="facts-inline" aria-label={`Parsed from ${entry.name}`}>
            {facts.map((f) => (
              <div key={f.label}>
                <dt>{f.label}</dt>
                <dd className={f.label === "columns" ? "mono" : "num"}>{f.value}</dd>
              </div>
            ))}
            {facts.length === 0 ? (
              <span className="faint">Parsed; nothing to preview for this kind.</span>
            ) : null}
          </dl>
        )}
        {(p?.parts ?? (p ? [p] : [])).some((x) => x.warnings?.length) ? (
          <ul className="import-warnings" aria-label="Warnings">
            {(p?.parts ?? (p ? [p] : []))
              .flatMap((x) => x.warnings ?? [])
              .map((w) => (
                <li key={w}>{w}</li>
              ))}
          </ul>
        ) : null}
        {saveError ? (
          <p className="import-error" role="alert">
            Not imported: {saveError}
          </p>
        ) : null}
        {entry.origin === "paste" ? <PasteEditor entry={entry} onChange={onChange} /> : null}
      </div>
    </li>
  );
}

// Edits re-preview once typing pauses, not on every key.
function PasteEditor({ entry, onChange }: { entry: ImportEntry; onChange: Props["onChange"] }) {
  const [text, setText] = useState(entry.content);
  const debounced = useDebouncedValue(text, 500);
  useEffect(() => {
    if (debounced !== entry.content) {
      onChange({
        content: debounced,
        size: new TextEncoder().encode(debounced).length,
        version: entry.version + 1,
      });
    }
  }, [debounced, entry.content, entry.version, onChange]);
  return (
    <details className="facts">
      <summary>Edit the pasted text</summary>
      <textarea
        className="textarea mono paste-edit"
        rows={8}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-label={`Text of ${entry.name}`}
        spellCheck={false}
      />
    </details>
  );
}
