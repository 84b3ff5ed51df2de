// "Your session has expired": a log-in form over the page instead of a redirect, so nothing typed on
// the page is lost; after logging in, every request that failed is made again.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, type Schemas, unwrap } from "@/api/client";
import { Dialog } from "@/components/Dialog";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { authKeys } from "../api";
import { setSessionExpired, useSessionExpired } from "../session-expired";

export function SessionExpiredDialog() {
  const open = useSessionExpired();
  const qc = useQueryClient();
  const [email, setEmail] = useState(() => (qc.getQueryData(authKeys.me) as { email?: string })?.email ?? "");
  const [password, setPassword] = useState("");
  const login = useMutation({
    mutationFn: (body: Schemas["LoginRequest"]) => unwrap(api.POST("/api/auth/login", { body })),
    onSuccess: (me) => {
      qc.setQueryData(authKeys.me, me);
      setPassword("");
      setSessionExpired(false);
      return qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== authKeys.me[0] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ email: email.trim(), password });
  };
  return (
    <Dialog open={open} title="Your session has expired" onClose={() => undefined}>
      <form className="form" onSubmit={submit} aria-label="Log in again">
        <p className="muted" style={{ margin: 0 }}>
          Log in again to carry on: this page stays as it is, and what you typed is kept.
        </p>
        {login.error ? <ErrorBox error={login.error} title="Could not log in" /> : null}
        <Field label="Email">
          <input
            className="input"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Field label="Password">
          <input
            className="input"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={login.isPending || !email || !password}>
            {login.isPending ? "Logging in…" : "Log in"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
