// "Make a decision" from a finding on the run page: the knob, before and after come from the finding's
// suggestion and the rationale from its evidence; the engineer only confirms (or edits) and saves.
import { useEffect, useState } from "react";
import { Dialog } from "@/components/Dialog";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import type { DecisionPick } from "@/lib/slots";
import { useRecordDecision } from "../api";

interface Props {
  slug: string;
  experimentId: number;
  pick: DecisionPick | null;
  onClose: () => void;
}

export function DecideDialog({ slug, experimentId, pick, onClose }: Props) {
  const record = useRecordDecision(slug);
  const [form, setForm] = useState<DecisionPick | null>(pick);
  const { reset } = record;
  // A fresh form (and no stale error) each time another finding is picked.
  useEffect(() => {
    setForm(pick);
    reset();
  }, [pick, reset]);
  const set = (k: keyof DecisionPick, v: string) => setForm((f) => (f ? { ...f, [k]: v } : f));
  const save = async () => {
    if (!form) return;
    await record.mutateAsync({
      experiment_id: experimentId,
      component: form.component,
      knob: form.knob,
      before: form.before,
      after: form.after,
      status: "proposed",
      rationale: form.rationale,
    });
    onClose();
  };
  return (
    <Dialog
      open={pick !== null}
      title={`Decision on ${pick?.experiment ?? ""}`}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={record.isPending || !form?.knob.trim()}
            onClick={() => void save().catch(() => undefined)}
          >
            Save decision
          </button>
        </>
      }
    >
      {form ? (
        <div className="form">
          {record.error ? <ErrorBox error={record.error} title="Could not save the decision" /> : null}
          <Field label="Component">
            <input value={form.component} onChange={(e) => set("component", e.target.value)} />
          </Field>
          <Field label="Knob">
            <input value={form.knob} onChange={(e) => set("knob", e.target.value)} />
          </Field>
          <Field label="Before">
            <input value={form.before} onChange={(e) => set("before", e.target.value)} />
          </Field>
          <Field label="After">
            <input value={form.after} onChange={(e) => set("after", e.target.value)} />
          </Field>
          <Field label="Rationale" hint="Markdown; the finding's evidence">
            <textarea rows={6} value={form.rationale} onChange={(e) => set("rationale", e.target.value)} />
          </Field>
        </div>
      ) : null}
    </Dialog>
  );
}
