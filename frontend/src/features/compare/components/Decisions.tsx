// Tuning decisions on the compared experiments: component, knob, before -> after, status, rationale,
// and the saved comparison that justifies them. Recording one pre-fills the knob change from the
// config diff between the experiment and the baseline (or another compared experiment when the
// baseline has no config snapshot, like a "direct" run without the proxy).
import { useQueries, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { Link } from "react-router";
import { Dialog } from "@/components/Dialog";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import {
  type CompareReply,
  type DecisionDraft,
  type DecisionRead,
  decisionsQueryOptions,
  prefillQueryOptions,
  useCreateDecision,
} from "../api";
import type { KnobPick } from "./Changes";
import { NoteBody } from "./Notes";

export const DECISION_STATUSES = ["proposed", "adopted", "rejected", "inconclusive"] as const;
type Status = (typeof DECISION_STATUSES)[number];

function DecisionItem({ d }: { d: DecisionRead }) {
  return (
    <div className="cmp-decision" data-testid="decision">
      <StatusBadge status={d.status} />
      <div>
        <div>
          <strong>{d.experiment_name}</strong>:{" "}
          {d.component ? <span className="tag">{d.component}</span> : null}
          <span className="cmp-knob">
            <strong>{d.knob}</strong> {d.before || "?"} → {d.after || "?"}
          </span>
        </div>
        <div className="cmp-note-meta" style={{ marginTop: 2 }}>
          {d.author_email ? <span>{d.author_email}</span> : null}
          <TimeAgo iso={d.updated_at} />
          {d.comparison_short_id ? (
            <Link to={`/c/${d.comparison_short_id}`}>evidence: comparison {d.comparison_short_id}</Link>
          ) : (
            <span className="faint">no comparison linked</span>
          )}
        </div>
        {d.rationale ? <NoteBody source={d.rationale} /> : null}
      </div>
    </div>
  );
}

interface SectionProps {
  reply: CompareReply;
  slug: string;
}

export function DecisionsSection({ reply, slug }: SectionProps) {
  const q = useQuery(decisionsQueryOptions(slug));
  const ids = new Set(reply.columns.map((c) => c.id));
  const mine = (q.data ?? []).filter((d) => ids.has(d.experiment_id));
  if (q.error)
    return <ErrorBox error={q.error} title="Could not load decisions" onRetry={() => q.refetch()} />;
  if (!q.data) return <p className="muted">Loading…</p>;
  if (!mine.length) {
    return (
      <p className="muted" style={{ margin: 0 }}>
        No decision recorded on these experiments yet. Record what you adopt or reject, and why: the history
        shows it next to each experiment.
      </p>
    );
  }
  return (
    <div>
      {mine.map((d) => (
        <DecisionItem key={d.id} d={d} />
      ))}
    </div>
  );
}

interface DialogProps {
  reply: CompareReply;
  slug: string;
  open: boolean;
  /** Pre-selection: an experiment and maybe a knob picked in "What changed". */
  initial: { experiment?: string; knob?: KnobPick } | null;
  /** Short id of the saved comparison to link, or a function that saves one first. */
  evidence: { shortId: string } | { save: () => Promise<string> };
  onClose: () => void;
}

interface Form {
  experiment: string;
  component: string;
  knob: string;
  before: string;
  after: string;
  status: Status;
  rationale: string;
  link: boolean;
}

function keyOf(d: DecisionDraft): string {
  return `${d.baseline}|${d.file}|${d.context}|${d.knob}`;
}

function draftLabel(d: DecisionDraft): string {
  return `${d.component ? `${d.component} ` : ""}${d.knob}: ${d.before} → ${d.after} (vs ${d.baseline})`;
}

export function DecisionDialog({ reply, slug, open, initial, evidence, onClose }: DialogProps) {
  const create = useCreateDecision(slug);
  const nonBase = reply.columns.filter((c) => !c.is_baseline);
  const firstExp = initial?.experiment ?? initial?.knob?.experiment ?? nonBase[0]?.name ?? reply.baseline;
  const blank = (exp: string): Form => ({
    experiment: exp,
    component: initial?.knob?.component ?? "",
    knob: initial?.knob?.knob ?? "",
    before: initial?.knob?.before ?? "",
    after: initial?.knob?.after ?? "",
    status: "proposed",
    rationale: "",
    link: true,
  });
  const [form, setForm] = useState<Form>(() => blank(firstExp));
  const [draftKey, setDraftKey] = useState<string>("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);

  // A fresh form each time the dialog opens on something else.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when opened or retargeted
  useEffect(() => {
    if (open) {
      setForm(blank(firstExp));
      setDraftKey(initial?.knob ? "picked" : "");
      setError(null);
    }
  }, [open, firstExp, initial]);

  const column = reply.columns.find((c) => c.name === form.experiment);
  // Candidate baselines for the pre-fill: the comparison's baseline first, then the others.
  const candidates = useMemo(
    () =>
      [reply.baseline, ...reply.experiments.filter((n) => n !== reply.baseline)].filter(
        (n) => n !== form.experiment,
      ),
    [reply.baseline, reply.experiments, form.experiment],
  );
  const prefills = useQueries({
    queries: candidates.map((b) => ({
      ...prefillQueryOptions(column?.id ?? 0, b),
      enabled: open && !!column,
    })),
  });
  const drafts = prefills.flatMap((p) => p.data ?? []);
  const loadingDrafts = prefills.some((p) => p.isPending && p.fetchStatus !== "idle");

  // Pre-fill with the first knob change found, unless the user already chose or typed one.
  useEffect(() => {
    if (!open || draftKey || form.knob) return;
    const first = drafts[0];
    if (first) {
      setDraftKey(keyOf(first));
      setForm((f) => ({
        ...f,
        component: first.component,
        knob: first.knob,
        before: first.before,
        after: first.after,
      }));
    }
  }, [open, drafts, draftKey, form.knob]);

  const set = <K extends keyof Form>(k: K, v: Form[K]) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async () => {
    if (!column || !form.knob.trim()) return;
    setSaving(true);
    setError(null);
    try {
      let shortId: string | null = null;
      if (form.link) shortId = "shortId" in evidence ? evidence.shortId : await evidence.save();
      await create.mutateAsync({
        experiment_id: column.id,
        component: form.component,
        knob: form.knob,
        before: form.before,
        after: form.after,
        status: form.status,
        rationale: form.rationale,
        comparison_short_id: shortId,
      });
      onClose();
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      open={open}
      title="Record a decision"
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={saving || !form.knob.trim() || !column}
            onClick={() => void submit()}
          >
            {saving ? "Saving…" : "Save decision"}
          </button>
        </>
      }
    >
      <form
        className="form"
        aria-label="Decision"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Field label="Experiment">
          <select
            className="select"
            value={form.experiment}
            onChange={(e) => {
              setDraftKey("");
              setForm({ ...blank(e.target.value), knob: "", component: "", before: "", after: "" });
            }}
          >
            {reply.columns.map((c) => (
              <option key={c.id} value={c.name}>
                {c.name}
                {c.is_baseline ? " (baseline)" : ""}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Pre-fill from the config diff"
          hint={
            loadingDrafts
              ? "Reading the config snapshots…"
              : drafts.length
                ? "Knob changes read from the config snapshots of the compared experiments."
                : "No knob change found in the config snapshots: type it below."
          }
        >
          <select
            className="select"
            value={draftKey}
            disabled={!drafts.length}
            onChange={(e) => {
              setDraftKey(e.target.value);
              const d = drafts.find((x) => keyOf(x) === e.target.value);
              if (d)
                setForm((f) => ({
                  ...f,
                  component: d.component,
                  knob: d.knob,
                  before: d.before,
                  after: d.after,
                }));
            }}
          >
            <option value="">{drafts.length ? "Choose a knob change…" : "—"}</option>
            {initial?.knob ? (
              <option value="picked">{`${initial.knob.knob}: ${initial.knob.before} → ${initial.knob.after} (vs ${initial.knob.baseline})`}</option>
            ) : null}
            {drafts.map((d) => (
              <option key={keyOf(d)} value={keyOf(d)}>
                {draftLabel(d)}
              </option>
            ))}
          </select>
        </Field>
        <div className="form-row" style={{ display: "grid", gridTemplateColumns: "1fr 1fr", gap: 8 }}>
          <Field label="Component">
            <input
              className="input"
              value={form.component}
              onChange={(e) => set("component", e.target.value)}
            />
          </Field>
          <Field label="Knob">
            <input
              className="input"
              value={form.knob}
              required
              onChange={(e) => set("knob", e.target.value)}
            />
          </Field>
          <Field label="Before">
            <input
              className="input mono"
              value={form.before}
              onChange={(e) => set("before", e.target.value)}
            />
          </Field>
          <Field label="After">
            <input className="input mono" value={form.after} onChange={(e) => set("after", e.target.value)} />
          </Field>
        </div>
        <Field label="Status">
          <select
            className="select"
            value={form.status}
            onChange={(e) => set("status", e.target.value as Status)}
          >
            {DECISION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Rationale (Markdown)">
          <textarea
            className="textarea"
            rows={3}
            value={form.rationale}
            placeholder="Why: RPS back to the direct baseline (within noise), readv one call per response."
            onChange={(e) => set("rationale", e.target.value)}
          />
        </Field>
        <label className="checkbox-row">
          <input type="checkbox" checked={form.link} onChange={(e) => set("link", e.target.checked)} />
          {"shortId" in evidence
            ? `Link comparison ${evidence.shortId} as the evidence`
            : "Save this comparison as a snapshot and link it as the evidence"}
        </label>
        {error ? <ErrorBox error={error} title="Could not save the decision" /> : null}
      </form>
    </Dialog>
  );
}
