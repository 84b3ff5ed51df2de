// New agent token: a name (which machine or script uses it) and its scopes.
import { type FormEvent, useState } from "react";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { ApiError } from "@/lib/api-error";
import { SCOPES, type Scope, type TokenCreated, useCreateToken } from "../api";

export function CreateTokenForm({ slug, onCreated }: { slug: string; onCreated: (t: TokenCreated) => void }) {
  const create = useCreateToken(slug);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["ingest", "read"]);
  const err = create.error instanceof ApiError ? create.error : null;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), scopes },
      {
        onSuccess: (t) => {
          setName("");
          onCreated(t);
        },
      },
    );
  };

  return (
    <form className="form" onSubmit={onSubmit} aria-label="Create token">
      {create.error && !err?.fields.length ? (
        <ErrorBox error={create.error} title="Could not create the token" />
      ) : null}
      <div className="form-row">
        <div style={{ flex: "1 1 260px" }}>
          <Field
            label="Name"
            hint="Where it is used, e.g. proxy-1 agents or CI."
            error={err?.fieldMessage("name")}
          >
            <input
              className="input"
              style={{ width: "100%" }}
              value={name}
              maxLength={200}
              placeholder="e.g. lab agents"
              onChange={(e) => setName(e.target.value)}
            />
          </Field>
        </div>
        <fieldset className="field" style={{ border: "none", padding: 0, margin: 0 }}>
          <legend className="field-label">Scopes</legend>
          <div className="checkbox-row" style={{ height: 30 }}>
            {SCOPES.map(({ scope, help }) => (
              <label key={scope} title={help}>
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(e) =>
                    setScopes((prev) =>
                      e.target.checked ? [...prev, scope] : prev.filter((s) => s !== scope),
                    )
                  }
                />
                {scope}
              </label>
            ))}
          </div>
          {err?.fieldMessage("scopes") ? (
            <span className="field-error">{err.fieldMessage("scopes")}</span>
          ) : null}
          {scopes.length === 0 ? <span className="field-error">Pick at least one scope.</span> : null}
        </fieldset>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!name.trim() || !scopes.length || create.isPending}
        >
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </div>
      <span className="field-hint">
        ingest: agents send runs and files · read: scripts read results (e.g.{" "}
        <code>perflab-agent compare</code>)
      </span>
    </form>
  );
}
