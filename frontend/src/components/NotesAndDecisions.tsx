// The notes and tuning decisions that belong to what a page shows (an experiment, a run), so the
// reasoning sits next to the numbers and not only on comparison pages. Presentational: the page
// fetches and says how to add a note.
import type { FormEvent } from "react";
import { Link } from "react-router";
import type { DecisionRead, NoteRead } from "@/api/notes";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { MarkdownText } from "@/components/MarkdownText";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { formatClock } from "@/lib/time-axis";
import { useDraft } from "@/lib/use-draft";

interface Props {
  notes: readonly NoteRead[];
  decisions: readonly DecisionRead[];
  /** A short label for where a note is attached ("run 2"), or null when it is this page's own. */
  scopeOf?: (n: NoteRead) => string | null;
  onAddNote?: (body: string) => Promise<unknown>;
  /** What a new note will cover, e.g. "the selected range 0:12–0:48 of this run". */
  addHint?: string;
  adding?: boolean;
  addError?: unknown;
  /** Where decisions are made (a comparison page), for the empty state. */
  decideHint?: string;
  /** Keeps the note being typed across reloads and expired sessions (e.g. "note:run:<id>"). */
  draftKey?: string;
}

export function noteRange(n: Pick<NoteRead, "t_start_s" | "t_end_s">): string | null {
  if (n.t_start_s === null || n.t_start_s === undefined) return null;
  const end = n.t_end_s !== null && n.t_end_s !== undefined && n.t_end_s > n.t_start_s ? n.t_end_s : null;
  return end === null ? `at ${formatClock(n.t_start_s)}` : `${formatClock(n.t_start_s)}–${formatClock(end)}`;
}

export function NotesAndDecisions({
  notes,
  decisions,
  scopeOf,
  onAddNote,
  addHint,
  adding = false,
  addError,
  decideHint = "Decisions are recorded from a comparison of this experiment against its baseline.",
  draftKey,
}: Props) {
  const [body, setBody, clearBody] = useDraft(draftKey ?? null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!onAddNote || !body.trim()) return;
    try {
      await onAddNote(body.trim());
      clearBody();
    } catch {
      // Shown by addError; the draft stays (an expired session opens the log-in dialog over the page).
    }
  };
  return (
    <section className="card" aria-labelledby="notes-decisions-title" data-testid="notes-decisions">
      <div className="card-header">
        <h2 id="notes-decisions-title">Notes and decisions</h2>
      </div>
      <div className="card-body form">
        <h3 className="nd-subhead">Decisions</h3>
        {decisions.length ? (
          <ul className="nd-list" data-testid="decisions">
            {decisions.map((d) => (
              <li key={d.id} className="nd-item" data-testid="decision">
                <div className="nd-meta">
                  <StatusBadge status={d.status} />
                  <strong>
                    {d.component ? `${d.component} ` : ""}
                    {d.knob}
                  </strong>
                  <span className="mono">
                    {d.before || "—"} → {d.after || "—"}
                  </span>
                  {d.comparison_short_id ? <Link to={`/c/${d.comparison_short_id}`}>evidence</Link> : null}
                </div>
                {d.rationale ? <MarkdownText source={d.rationale} /> : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No decision recorded yet. {decideHint}</p>
        )}
        <h3 className="nd-subhead">Notes</h3>
        {notes.length ? (
          <ul className="nd-list" data-testid="notes">
            {notes.map((n) => {
              const scope = scopeOf?.(n) ?? null;
              const range = noteRange(n);
              return (
                <li key={n.id} className="nd-item" data-testid="note">
                  <div className="nd-meta">
                    {scope ? <span className="tag">{scope}</span> : null}
                    {range ? <span className="tag num">{range}</span> : null}
                    {n.author_email ? <span className="muted">{n.author_email}</span> : null}
                    <TimeAgo iso={n.created_at} />
                  </div>
                  <MarkdownText source={n.body_md} />
                </li>
              );
            })}
          </ul>
        ) : (
          <p className="muted">No notes yet: write down what you expected and what you saw.</p>
        )}
        {onAddNote ? (
          <form className="form" onSubmit={submit} aria-label="Add a note">
            <Field label="Add a note (Markdown)" hint={addHint}>
              <textarea
                rows={3}
                value={body}
                onChange={(e) => setBody(e.target.value)}
                placeholder="What you saw, what you expected, what to try next"
              />
            </Field>
            {addError ? <ErrorBox error={addError} title="Could not save the note" /> : null}
            <div className="actions">
              <button type="submit" className="btn btn-sm btn-primary" disabled={adding || !body.trim()}>
                {adding ? "Saving…" : "Add note"}
              </button>
            </div>
          </form>
        ) : null}
      </div>
    </section>
  );
}
