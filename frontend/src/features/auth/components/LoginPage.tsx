// Email + password login. After success we go back to where the user was sent from (?next=).
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { ApiError } from "@/lib/api-error";
import { safeNextPath } from "@/lib/url-state";
import { useTitle } from "@/lib/use-title";
import { mayHaveSession, meQueryOptions, useLogin } from "../api";

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNextPath(params.get("next"));
  const navigate = useNavigate();
  // Already logged in? Asked only when a session may exist, so a first visit logs no 401.
  const me = useQuery({ ...meQueryOptions(), enabled: mayHaveSession() });
  const login = useLogin();
  useTitle("Log in");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");

  if (me.data) return <Navigate to={next} replace />;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate({ email: email.trim(), password }, { onSuccess: () => navigate(next, { replace: true }) });
  };
  const err = login.error instanceof ApiError ? login.error : null;

  return (
    <main className="login-wrap">
      <div className="card login-card">
        <form className="card-body" onSubmit={onSubmit} noValidate>
          <div className="brand">
            <BrandMark />
            perflab
          </div>
          <h1>Log in</h1>
          {login.error ? <ErrorBox error={login.error} title="Could not log in" /> : null}
          <Field label="Email" error={err?.fieldMessage("email")}>
            <input
              className="input"
              type="email"
              name="email"
              autoComplete="username"
              required
              // biome-ignore lint/a11y/noAutofocus: the login page has one job; typing should start at once
              autoFocus
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </Field>
          <Field label="Password" error={err?.fieldMessage("password")}>
            <input
              className="input"
              type="password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </Field>
          <button className="btn btn-primary" type="submit" disabled={login.isPending || !email || !password}>
            {login.isPending ? "Logging in…" : "Log in"}
          </button>
          <p className="faint" style={{ margin: 0, fontSize: 12.5 }}>
            Accounts are created by an admin: <code>perflab user create</code>. The first admin comes from
            PERFLAB_ADMIN_EMAIL / PERFLAB_ADMIN_PASSWORD or is printed when the server first starts.
          </p>
        </form>
      </div>
    </main>
  );
}

export function BrandMark() {
  return (
    <svg className="brand-mark" viewBox="0 0 16 16" aria-hidden="true">
      <rect width="16" height="16" rx="3" fill="var(--accent)" />
      <path d="M3 11l3-4 3 2 4-6" stroke="white" strokeWidth="1.6" fill="none" />
    </svg>
  );
}
