// New project: a name, and a slug derived from it (editable) that becomes the URL and the CLI's --project.
import { type FormEvent, useState } from "react";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { ApiError } from "@/lib/api-error";
import { SLUG_PATTERN, slugify } from "@/lib/slug";
import { type Project, useCreateProject } from "../api";

interface Props {
  onCreated: (project: Project) => void;
  onCancel?: () => void;
}

export function CreateProjectForm({ onCreated, onCancel }: Props) {
  const create = useCreateProject();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugEdited, setSlugEdited] = useState(false);
  const [description, setDescription] = useState("");
  const effectiveSlug = slugEdited ? slug : slugify(name);
  const slugProblem =
    effectiveSlug && !SLUG_PATTERN.test(effectiveSlug)
      ? "Lowercase letters, digits and '-' only, starting with a letter or digit."
      : undefined;
  const err = create.error instanceof ApiError ? create.error : null;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), slug: effectiveSlug || null, description: description.trim() },
      { onSuccess: onCreated },
    );
  };

  return (
    <form className="form" onSubmit={onSubmit} aria-label="Create project">
      {create.error && !err?.fields.length ? (
        <ErrorBox error={create.error} title="Could not create the project" />
      ) : null}
      <div className="form-row">
        <div style={{ flex: "2 1 260px" }}>
          <Field label="Name" error={err?.fieldMessage("name")}>
            <input
              className="input"
              style={{ width: "100%" }}
              placeholder="nginx proxy throughput"
              value={name}
              maxLength={200}
              required
              onChange={(e) => setName(e.target.value)}
            />
          </Field>
        </div>
        <div style={{ flex: "1 1 200px" }}>
          <Field
            label="Slug"
            hint="Used in URLs and by the agent's --project."
            error={slugProblem ?? err?.fieldMessage("slug")}
          >
            <input
              className="input mono"
              style={{ width: "100%" }}
              placeholder="nginx-proxy-throughput"
              value={effectiveSlug}
              maxLength={100}
              onChange={(e) => {
                setSlugEdited(true);
                setSlug(e.target.value);
              }}
            />
          </Field>
        </div>
      </div>
      <Field label="Description (optional)" error={err?.fieldMessage("description")}>
        <textarea
          className="textarea"
          placeholder="Why does throughput halve when nginx sits in front of Tomcat?"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </Field>
      <div className="actions">
        <button
          className="btn btn-primary"
          type="submit"
          disabled={!name.trim() || !!slugProblem || create.isPending}
        >
          {create.isPending ? "Creating…" : "Create project"}
        </button>
        {onCancel ? (
          <button className="btn" type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
