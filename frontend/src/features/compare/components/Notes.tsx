// Notes in Markdown on the project, a compared experiment, a run, or a time range of a run (drawn as a
// band on every overlay that includes the run). Rendered sanitised; the renderer loads lazily because
// notes sit below the fold.
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { ErrorBox } from "@/components/ErrorBox";
import { TimeAgo } from "@/components/TimeAgo";
import {
  type CompareReply,
  type NoteRead,
  type NoteRef,
  projectNotesQueryOptions,
  useCreateNote,
  useDeleteNote,
} from "../api";
import { formatOffset, parseOffset } from "../format";

const Markdown = lazy(() => import("@/components/Markdown"));

export function NoteBody({ source }: { source: string }) {
  return (
    <Suspense fallback={<div className="markdown muted">{source.slice(0, 400)}</div>}>
      <Markdown source={source} />
    </Suspense>
  );
}

type AnyNote = (NoteRef | NoteRead) & { author_email?: string | null };

function scopeOf(reply: CompareReply, n: AnyNote): string {
  if (n.run_id) {
    for (const c of reply.columns) {
      const r = c.runs.find((x) => x.id === n.run_id);
      if (r) {
        const range =
          n.t_start_s !== null && n.t_start_s !== undefined
            ? ` · ${formatOffset(n.t_start_s)}${n.t_end_s !== null && n.t_end_s !== undefined && n.t_end_s > n.t_start_s ? `–${formatOffset(n.t_end_s)}` : ""}`
            : "";
        return `${c.name} · ${r.label}${range}`;
      }
    }
    return "a run";
  }
  if ("experiment" in n && n.experiment) return `experiment ${n.experiment}`;
  if ("experiment_id" in n && n.experiment_id) {
    const c = reply.columns.find((x) => x.id === n.experiment_id);
    return c ? `experiment ${c.name}` : "an experiment";
  }
  return "project";
}

function NoteItem({ reply, note, onDelete }: { reply: CompareReply; note: AnyNote; onDelete?: () => void }) {
  return (
    <li className="cmp-note" data-testid="note">
      <div className="cmp-note-meta">
        <span className="tag">{scopeOf(reply, note)}</span>
        {note.author_email ? <span>{note.author_email}</span> : null}
        <TimeAgo iso={note.created_at} />
        <span className="spacer" />
        {onDelete ? (
          <button type="button" className="btn btn-sm btn-ghost" onClick={onDelete}>
            Delete
          </button>
        ) : null}
      </div>
      <NoteBody source={note.body_md} />
    </li>
  );
}

/** Read-only list (the public share view shows the notes of the frozen runs). */
export function NotesList({ reply, notes }: { reply: CompareReply; notes: AnyNote[] }) {
  if (!notes.length) return <p className="muted">No notes on these experiments.</p>;
  return (
    <ul className="cmp-notes">
      {notes.map((n) => (
        <NoteItem key={n.id} reply={reply} note={n} />
      ))}
    </ul>
  );
}

export function NotesSection({ reply, slug }: { reply: CompareReply; slug: string }) {
  const project = useQuery(projectNotesQueryOptions(slug));
  const del = useDeleteNote();
  const notes: AnyNote[] = [...(project.data ?? []), ...reply.notes].sort((a, b) =>
    a.created_at < b.created_at ? 1 : -1,
  );
  return (
    <>
      {project.error ? <ErrorBox error={project.error} title="Could not load the project's notes" /> : null}
      {del.error ? <ErrorBox error={del.error} title="Could not delete the note" /> : null}
      {notes.length ? (
        <ul className="cmp-notes">
          {notes.map((n) => (
            <NoteItem key={n.id} reply={reply} note={n} onDelete={() => del.mutate(n.id)} />
          ))}
        </ul>
      ) : (
        <p className="muted" style={{ margin: 0 }}>
          No notes yet: write down what you saw ("sy at 80% from t+2s", "nginx reload at 0:42").
        </p>
      )}
      <NoteComposer reply={reply} slug={slug} />
    </>
  );
}

function NoteComposer({ reply, slug }: { reply: CompareReply; slug: string }) {
  const create = useCreateNote(slug);
  const [target, setTarget] = useState("project");
  const [body, setBody] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const isRun = target.startsWith("run:");
  const start = isRun ? parseOffset(from) : null;
  const end = isRun ? parseOffset(to) : null;
  const rangeError =
    isRun && from && start === null
      ? "Write the start as m:ss or seconds"
      : isRun && to && (end === null || start === null || end < start)
        ? "The end must be a time after the start"
        : undefined;

  const submit = () => {
    const [kind, id] = [target.split(":")[0], target.slice(target.indexOf(":") + 1)];
    create.mutate(
      {
        body_md: body,
        experiment_id: kind === "exp" ? Number(id) : null,
        run_id: kind === "run" ? id : null,
        t_start_s: start,
        t_end_s: end,
      },
      {
        onSuccess: () => {
          setBody("");
          setFrom("");
          setTo("");
        },
      },
    );
  };

  return (
    <form
      className="cmp-composer"
      aria-label="New note"
      onSubmit={(e) => {
        e.preventDefault();
        if (body.trim() && !rangeError) submit();
      }}
    >
      <div className="form-row">
        <div className="field">
          <label htmlFor="note-target" className="field-label">
            Note on
          </label>
          <select
            id="note-target"
            className="select"
            value={target}
            onChange={(e) => setTarget(e.target.value)}
          >
            <option value="project">the project</option>
            {reply.columns.map((c) => (
              <optgroup key={c.id} label={c.name}>
                <option value={`exp:${c.id}`}>experiment {c.name}</option>
                {c.runs.map((r) => (
                  <option key={r.id} value={`run:${r.id}`}>
                    {c.name} · {r.label}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        {isRun ? (
          <>
            <div className="field" style={{ width: 110 }}>
              <label htmlFor="note-from" className="field-label">
                From (m:ss)
              </label>
              <input
                id="note-from"
                className="input"
                placeholder="0:42"
                value={from}
                onChange={(e) => setFrom(e.target.value)}
                aria-invalid={rangeError && from ? true : undefined}
              />
            </div>
            <div className="field" style={{ width: 110 }}>
              <label htmlFor="note-to" className="field-label">
                To (optional)
              </label>
              <input
                id="note-to"
                className="input"
                placeholder="0:50"
                value={to}
                onChange={(e) => setTo(e.target.value)}
              />
            </div>
          </>
        ) : null}
      </div>
      {rangeError ? <span className="field-error">{rangeError}</span> : null}
      <div className="field">
        <label htmlFor="note-body" className="field-label">
          Note (Markdown)
        </label>
        <textarea
          id="note-body"
          className="textarea"
          rows={3}
          value={body}
          placeholder="What did you see? Markdown: **bold**, `code`, [links](https://…), tables."
          onChange={(e) => setBody(e.target.value)}
        />
      </div>
      {create.error ? <ErrorBox error={create.error} title="Could not save the note" /> : null}
      <div className="actions">
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!body.trim() || !!rangeError || create.isPending}
        >
          {create.isPending ? "Saving…" : "Add note"}
        </button>
        {isRun && start !== null ? (
          <span className="muted" style={{ fontSize: 12.5 }}>
            Drawn on every chart of this comparison that includes the run.
          </span>
        ) : null}
      </div>
    </form>
  );
}
