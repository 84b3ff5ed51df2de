// Plan an experiment before running it: name, hypothesis, tags. Agents can also create it on first run.
import { type FormEvent, useState } from "react";
import { Dialog } from "@/components/Dialog";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { ApiError } from "@/lib/api-error";
import { type Experiment, useCreateExperiment } from "../api";
import { parseTags } from "../headline";

interface Props {
  slug: string;
  open: boolean;
  onClose: () => void;
  onCreated: (exp: Experiment) => void;
}

export function NewExperimentDialog({ slug, open, onClose, onCreated }: Props) {
  const create = useCreateExperiment(slug);
  const [name, setName] = useState("");
  const [hypothesis, setHypothesis] = useState("");
  const [tags, setTags] = useState("");
  const err = create.error instanceof ApiError ? create.error : null;

  const close = () => {
    create.reset();
    onClose();
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), hypothesis: hypothesis.trim(), tags: parseTags(tags) },
      {
        onSuccess: (exp) => {
          setName("");
          setHypothesis("");
          setTags("");
          onCreated(exp);
        },
      },
    );
  };

  return (
    <Dialog open={open} title="New experiment" onClose={close}>
      <form className="form" onSubmit={onSubmit} id="new-experiment-form">
        {create.error && !err?.fields.length ? (
          <ErrorBox error={create.error} title="Could not create it" />
        ) : null}
        <Field
          label="Name"
          hint="The configuration tried, e.g. proxy_buffers 4 128k."
          error={err?.fieldMessage("name")}
        >
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
            placeholder="Bigger proxy buffers cut readv/writev calls and recover throughput."
            value={hypothesis}
            onChange={(e) => setHypothesis(e.target.value)}
          />
        </Field>
        <Field label="Tags" hint="Comma or space separated." error={err?.fieldMessage("tags")}>
          <input className="input" value={tags} onChange={(e) => setTags(e.target.value)} />
        </Field>
        <div className="actions" style={{ justifyContent: "flex-end" }}>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!name.trim() || create.isPending}>
            {create.isPending ? "Creating…" : "Create experiment"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
