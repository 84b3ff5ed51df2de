// The roles a run's data carries (proxy, loadgen, target...), renamable afterwards so an imported run
// lines up with agent runs ("target" -> "proxy"): compare matches telemetry, syscalls and configs by role.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "@/api/client";
import { ErrorBox } from "@/components/ErrorBox";
import type { RunDetail } from "../api";

export function runRoles(run: Pick<RunDetail, "hosts" | "streams" | "summaries">): string[] {
  const roles = new Set<string>();
  for (const h of run.hosts) roles.add(h.role);
  for (const s of run.streams) roles.add(s.role);
  for (const s of run.summaries) if (s.role) roles.add(s.role);
  return [...roles].sort();
}

export function RunRoles({ run, canWrite }: { run: RunDetail; canWrite: boolean }) {
  const roles = runRoles(run);
  const [editing, setEditing] = useState(false);
  const [names, setNames] = useState<Record<string, string>>({});
  const qc = useQueryClient();
  const rename = useMutation({
    mutationFn: (body: Record<string, string>) =>
      unwrap(
        api.PATCH("/api/runs/{run_id}", { params: { path: { run_id: run.id } }, body: { roles: body } }),
      ),
    onSuccess: () => {
      setEditing(false);
      return qc.invalidateQueries();
    },
  });
  if (!roles.length) return <span className="faint">none</span>;
  if (!editing)
    return (
      <span className="actions" style={{ justifyContent: "flex-start" }}>
        {roles.map((r) => (
          <span key={r} className="tag">
            {r}
          </span>
        ))}
        {canWrite ? (
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            onClick={() => {
              setNames(Object.fromEntries(roles.map((r) => [r, r])));
              setEditing(true);
            }}
          >
            Rename roles
          </button>
        ) : null}
      </span>
    );
  return (
    <form
      className="form"
      aria-label="Rename roles"
      onSubmit={(e) => {
        e.preventDefault();
        const changed = Object.fromEntries(Object.entries(names).filter(([from, to]) => from !== to.trim()));
        if (!Object.keys(changed).length) return setEditing(false);
        rename.mutate(Object.fromEntries(Object.entries(changed).map(([f, t]) => [f, t.trim()])));
      }}
    >
      {roles.map((r) => (
        <label key={r} className="actions" style={{ justifyContent: "flex-start" }}>
          <span className="tag">{r}</span> →
          <input
            className="input"
            aria-label={`New name for role ${r}`}
            value={names[r] ?? r}
            maxLength={64}
            onChange={(e) => setNames((prev) => ({ ...prev, [r]: e.target.value }))}
          />
        </label>
      ))}
      <span className="actions" style={{ justifyContent: "flex-start" }}>
        <button type="submit" className="btn btn-sm btn-primary" disabled={rename.isPending}>
          Save roles
        </button>
        <button type="button" className="btn btn-sm" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </span>
      {rename.error ? <ErrorBox error={rename.error} title="Could not rename the roles" /> : null}
    </form>
  );
}
