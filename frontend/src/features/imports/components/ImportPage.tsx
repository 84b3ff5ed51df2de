// "Import results": turn output an engineer already has (pasted, or files, gzip too) into a run of an
// experiment. Each file is previewed by the server's own parsers before anything is saved; saving the
// same files twice says so and links to the run that already holds them.
import "../imports.css";
import { useQueries, useQuery } from "@tanstack/react-query";
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { CodeBlock } from "@/components/CodeBlock";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { ApiError } from "@/lib/api-error";
import { formatBytes, formatInt } from "@/lib/format";
import { useProjectRole } from "@/lib/project-role";
import { useTitle } from "@/lib/use-title";
import { previewQueryOptions, projectRolesQueryOptions, useCreateImport } from "../api";
import { loadImportDraft, rememberedRole, rememberRole, saveImportDraft } from "../import-draft";
import {
  cliCommand,
  fileErrors,
  type ImportEntry,
  KINDS,
  pastedEntry,
  readable,
  readFileEntry,
  roleError,
} from "../import-files";
import { AddOutput } from "./AddOutput";
import { ExperimentField } from "./ExperimentField";
import { FileCard } from "./FileCard";

export function ImportPage() {
  const { slug = "" } = useParams();
  useTitle("Import results", slug);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  // A reload (or a log-in after the session expired) finds the files and fields as they were.
  const [draft] = useState(() => loadImportDraft(slug));
  const [entries, setEntries] = useState<ImportEntry[]>(() => draft?.entries ?? []);
  const [reading, setReading] = useState(false);
  const [readError, setReadError] = useState<string | null>(null);
  const [experiment, setExperiment] = useState(() => params.get("experiment") ?? draft?.experiment ?? "");
  const [isNew, setIsNew] = useState(false);
  const [label, setLabel] = useState(() => draft?.label ?? "");
  const [hypothesis, setHypothesis] = useState(() => draft?.hypothesis ?? "");
  const [kept, setKept] = useState(true);
  const create = useCreateImport(slug);
  const { role: myRole, canWrite } = useProjectRole(slug);
  const knownRoles = useQuery({ ...projectRolesQueryOptions(slug), enabled: canWrite });

  useEffect(() => {
    setKept(saveImportDraft(slug, { entries, experiment, label, hypothesis }));
  }, [slug, entries, experiment, label, hypothesis]);

  const previews = useQueries({
    queries: entries.map((e) => ({ ...previewQueryOptions(slug, e), enabled: canWrite })),
  });
  // A file of a tool whose role was chosen before gets that role again (once; the user may change it).
  const applied = useRef(new Set<string>());
  useEffect(() => {
    entries.forEach((e, i) => {
      const kind = previews[i]?.data?.kind;
      if (!kind || e.role !== null || applied.current.has(e.id)) return;
      applied.current.add(e.id);
      const role = rememberedRole(slug, kind);
      if (role && role !== previews[i]?.data?.role) {
        setEntries((prev) => prev.map((x) => (x.id === e.id ? { ...x, role } : x)));
      }
    });
  }, [entries, previews, slug]);

  const addFiles = async (files: File[]) => {
    setReading(true);
    setReadError(null);
    try {
      const read = await Promise.all(files.map(readFileEntry));
      setEntries((prev) => [...prev, ...read]);
      create.reset();
    } catch (e) {
      setReadError(e instanceof Error ? e.message : String(e));
    } finally {
      setReading(false);
    }
  };
  const addPaste = (text: string) => {
    setEntries((prev) => [...prev, pastedEntry(text, prev)]);
    create.reset();
  };
  const kindOf = useRef(new Map<string, string>());
  entries.forEach((e, i) => {
    const k = previews[i]?.data?.kind;
    if (k) kindOf.current.set(e.id, k);
  });
  const update = useCallback(
    (id: string, patch: Partial<ImportEntry>) => {
      const kind = kindOf.current.get(id);
      if ("role" in patch && kind) rememberRole(slug, kind, patch.role ?? null);
      setEntries((prev) => prev.map((e) => (e.id === id ? { ...e, ...patch } : e)));
    },
    [slug],
  );
  const remove = (id: string) => {
    setEntries((prev) => prev.filter((e) => e.id !== id));
    create.reset();
  };

  const pending = previews.filter((p) => p.isPending).length;
  // Files kept unread (attachments, with a note) do not block the import; an undecodable or empty file
  // does, and so does an import where nothing at all can be read.
  const bad = entries.filter((_, i) => {
    const p = previews[i];
    return (
      p && !p.isPending && (p.error || (p.data?.ok === false && !p.data.attachment && !("parts" in p.data)))
    );
  });
  const unread = entries.filter((_, i) => {
    const d = previews[i]?.data;
    return !!d && !readable(d);
  });
  const badRoles = entries.filter((e) => roleError(e.role));
  const totalBytes = entries.reduce((n, e) => n + e.size, 0);
  const blocker =
    entries.length === 0
      ? "Add at least one file."
      : !experiment.trim()
        ? "Name the experiment these results belong to."
        : pending
          ? `Waiting for the preview of ${formatInt(pending)} file${pending === 1 ? "" : "s"}…`
          : bad.length
            ? `Remove or fix ${bad.length === 1 ? `${bad[0]?.name}: it` : `${bad.length} files that`} could not be parsed.`
            : badRoles.length
              ? "Fix the roles marked in red."
              : unread.length === entries.length
                ? "Nothing here can be read: add an output perflab knows, or choose a file's kind."
                : null;

  const serverError = create.error instanceof ApiError ? create.error : null;
  const perFile = useMemo(
    () =>
      serverError && typeof serverError.detail === "string"
        ? fileErrors(
            serverError.detail,
            entries.map((e) => e.name),
          )
        : new Map<string, string>(),
    [serverError, entries],
  );
  const result = create.data;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (blocker) return;
    create.mutate(
      { experiment, label, hypothesis: isNew ? hypothesis : "", entries },
      {
        onSuccess: (r) => {
          if (!r.duplicate) {
            saveImportDraft(slug, { entries: [], experiment: "", label: "", hypothesis: "" });
            setEntries([]);
            navigate(`/p/${slug}/runs/${r.run_id}`);
          }
        },
      },
    );
  };

  const origin = typeof window === "undefined" ? "http://localhost:8000" : window.location.origin;
  const roles = [
    ...new Set([...(knownRoles.data ?? []), ...entries.map((e) => e.role).filter((r): r is string => !!r)]),
  ];

  if (myRole === "viewer")
    return (
      <main className="page">
        <div className="page-header">
          <div>
            <h1>Import results</h1>
          </div>
        </div>
        <div className="alert alert-warn" role="note" data-testid="viewer-cannot-import">
          <span className="alert-title">You can read this project but not import into it</span>
          <span>
            You are a viewer of {slug}. Importing needs a member or an owner: ask an owner of the project (see
            its <Link to={`/p/${slug}/members`}>Members</Link>) to make you a member.
          </span>
        </div>
      </main>
    );

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Import results</h1>
          <div className="subtitle">
            Turn output you already have into a run of an experiment: the same parsers as the agents, raw text
            kept.
          </div>
        </div>
      </div>

      <AddOutput onFiles={addFiles} onPaste={addPaste} reading={reading} />
      {!kept ? (
        <div className="alert alert-warn" role="status">
          These files are too large to keep in the browser: a reload would lose them until they are saved.
        </div>
      ) : null}
      {readError ? <ErrorBox error={new Error(readError)} title="Could not read the file" /> : null}

      {entries.length === 0 ? (
        <section className="card" aria-labelledby="kinds-title">
          <EmptyState title="Nothing to import yet">
            <p>
              Drop or paste the output of any of these tools. Each file is detected and parsed by the server
              before you save; truncated pastes import what is there, with warnings.
            </p>
          </EmptyState>
          <div className="table-wrap kinds-table">
            <h2 id="kinds-title" className="sr-only">
              What can be imported
            </h2>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">What it gives</th>
                  <th scope="col">Typical command</th>
                </tr>
              </thead>
              <tbody>
                {KINDS.map((k) => (
                  <tr key={k.kind}>
                    <td className="mono">{k.kind}</td>
                    <td>{k.what}</td>
                    <td>
                      <code>{k.example}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : (
        <section aria-labelledby="files-title" className="form">
          <div className="section-title">
            <h2 id="files-title">
              Files <span className="faint">· {formatInt(entries.length)}</span>
            </h2>
            <span className="muted">{formatBytes(totalBytes)}</span>
          </div>
          <ul className="import-files">
            {entries.map((e, i) => {
              const p = previews[i];
              if (!p) return null;
              return (
                <FileCard
                  key={e.id}
                  entry={e}
                  preview={p}
                  saveError={perFile.get(e.name)}
                  roles={roles}
                  onChange={(patch) => update(e.id, patch)}
                  onRemove={() => remove(e.id)}
                />
              );
            })}
          </ul>
        </section>
      )}

      <form className="card" onSubmit={onSubmit} aria-labelledby="save-title">
        <div className="card-header">
          <h2 id="save-title">Save as a run</h2>
        </div>
        <div className="card-body form">
          <div className="form-row import-form-row">
            <ExperimentField slug={slug} value={experiment} onChange={setExperiment} onNewChange={setIsNew} />
            <div className="field">
              <label htmlFor="import-label">Run label (optional)</label>
              <input
                id="import-label"
                className="input"
                value={label}
                maxLength={200}
                placeholder="run 1, after reboot…"
                onChange={(e) => setLabel(e.target.value)}
              />
            </div>
          </div>
          {isNew && experiment.trim() ? (
            <div className="field">
              <label htmlFor="import-hypothesis">Hypothesis of the new experiment (optional)</label>
              <textarea
                id="import-hypothesis"
                className="textarea"
                rows={2}
                value={hypothesis}
                maxLength={20000}
                placeholder="Bigger proxy buffers cut readv/writev calls and raise RPS."
                onChange={(e) => setHypothesis(e.target.value)}
              />
            </div>
          ) : null}
          {create.error && perFile.size === 0 ? (
            <ErrorBox error={create.error} title="Nothing was imported" />
          ) : create.error ? (
            <div className="alert alert-error" role="alert">
              <span className="alert-title">Nothing was imported</span>
              <span>{create.error.message}</span>
            </div>
          ) : null}
          {result?.duplicate ? (
            <div className="alert alert-warn" role="status" data-testid="duplicate-import">
              <span className="alert-title">Already imported</span>
              <span>
                These files were imported before, into the same experiment; no new run was created.{" "}
                <Link to={`/p/${slug}/runs/${result.run_id}`}>Open the existing run</Link>
              </span>
            </div>
          ) : null}
          <div className="actions">
            <button type="submit" className="btn btn-primary" disabled={!!blocker || create.isPending}>
              {create.isPending ? "Importing…" : "Save run"}
            </button>
            {blocker ? (
              <span className="muted" role="status">
                {blocker}
              </span>
            ) : unread.length ? (
              <span className="muted" role="status" data-testid="attachments-notice">
                {unread.length === 1 ? `${unread[0]?.name} is` : `${unread.length} files are`} not read: kept
                as attachments of the run, downloadable from its page.
              </span>
            ) : null}
          </div>
        </div>
      </form>

      <section className="card" aria-labelledby="cli-title">
        <div className="card-header">
          <h2 id="cli-title">The same from a terminal</h2>
          <Link to={`/p/${slug}/tokens`}>Create a token</Link>
        </div>
        <div className="card-body form">
          <CodeBlock
            code={cliCommand(
              origin,
              slug,
              experiment,
              label,
              entries.map((e) => e.name),
            )}
            label="Import with the agent"
          />
          <p className="faint" style={{ margin: 0 }}>
            With the zipapp: <code>python3 perflab-agent.pyz import …</code> (download it from{" "}
            <code>{origin}/agent/perflab-agent.pyz</code>). The agent prints the new run's id; it uses the
            default roles (wrk: loadgen, everything else: target)
            {entries.some((e) => e.origin === "paste") ? "; save pasted text to a file first" : ""}.
          </p>
        </div>
      </section>
    </main>
  );
}
