// Edits what the experiment is and why; the server's 422 messages land under the field they concern.
import { type FormEvent, useState } from "react";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { ApiError } from "@/lib/api-error";
import { useDraft } from "@/lib/use-draft";
import { type Experiment, useUpdateExperiment } from "../api";
import { parseTags } from "../headline";

export function EditExperimentForm({ experiment, onDone }: { experiment: Experiment; onDone: () => void }) {
  const update = useUpdateExperiment(experiment.id);
  const [name, setName] = useState(experiment.name);
  // The hypothesis being written survives a reload or an expired session (cleared once saved).
  const [hypothesis, setHypothesis, clearHypothesis] = useDraft(
    `hypothesis:${experiment.id}`,
    experiment.hypothesis,
  );
  // The version this edit starts from: if someone saves in between, the server refuses ours (409).
  const [version] = useState(experiment.version);
  const [tags, setTags] = useState(experiment.tags.join(", "));
  const err = update.error instanceof ApiError ? update.error : null;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate(
      { name: name.trim(), hypothesis: hypothesis.trim(), tags: parseTags(tags), version },
      {
        onSuccess: () => {
          clearHypothesis();
          onDone();
        },
      },
    );
  };

  return (
    <form className="form" onSubmit={onSubmit}>
      {update.error && !err?.fields.length ? <ErrorBox error={update.error} title="Could not save" /> : null}
      <Field label="Name" error={err?.fieldMessage("name")}>
        <input
          className="input"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={200}
        />
      </Field>
      <Field label="Hypothesis" error={err?.fieldMessage("hypothesis")}>
        <textarea
          className="textarea"
          rows={4}
          value={hypothesis}
          onChange={(e) => setHypothesis(e.target.value)}
        />
      </Field>
      <Field label="Tags" hint="Comma or space separated." error={err?.fieldMessage("tags")}>
        <input className="input" value={tags} onChange={(e) => setTags(e.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" className="btn btn-primary" disabled={!name.trim() || update.isPending}>
          {update.isPending ? "Saving…" : "Save"}
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            clearHypothesis();
            onDone();
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
