// Regression alerts: webhooks that tell a chat or a service about a new change point, a failed CI gate
// or a finding. Owners add, list and delete them; everyone else is told who manages them.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useParams } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { ManagedTable, OwnerManagedList } from "@/components/OwnerManagedList";
import { SecretOnceDialog } from "@/components/SecretOnceDialog";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { ApiError } from "@/lib/api-error";
import { useProjectRole } from "@/lib/project-role";
import { useTitle } from "@/lib/use-title";
import {
  EVENTS,
  SENSITIVITIES,
  useCreateWebhook,
  useDeleteWebhook,
  type Webhook,
  type WebhookCreated,
  type WebhookEvent,
  webhooksQueryOptions,
} from "../api";

export function AlertsPage() {
  const { slug = "" } = useParams();
  useTitle("Alerts", slug);
  const { role, canManage } = useProjectRole(slug);
  const hooks = useQuery(webhooksQueryOptions(slug, canManage));
  const [created, setCreated] = useState<WebhookCreated | null>(null);

  return (
    <OwnerManagedList
      title="Regression alerts"
      subtitle={
        <>
          Webhooks post to a URL when a change point appears, a CI gate fails a build, or a finding appears in
          an experiment: a JSON body or a Slack-compatible one, signed with HMAC-SHA256 in{" "}
          <code>X-Perflab-Signature</code>, retried with backoff.
        </>
      }
      locked={
        canManage ? undefined : (
          <EmptyState title="Webhooks are managed by the project's owners">
            <p>{role ? `You are a ${role} of this project; ask an owner to add or change one.` : null}</p>
          </EmptyState>
        )
      }
      newTitle="New webhook"
      newTitleId="new-webhook-title"
      form={<CreateWebhookForm slug={slug} onCreated={setCreated} />}
      list={hooks}
      listLabel="Webhooks"
      empty={
        <EmptyState title="No webhooks yet">
          <p>Add one above to hear about regressions where your team already looks.</p>
        </EmptyState>
      }
      table={<WebhookTable slug={slug} hooks={hooks.data} pending={hooks.isPending} />}
    >
      <SecretDialog hook={created} onClose={() => setCreated(null)} />
    </OwnerManagedList>
  );
}

function CreateWebhookForm({ slug, onCreated }: { slug: string; onCreated: (h: WebhookCreated) => void }) {
  const create = useCreateWebhook(slug);
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [format, setFormat] = useState<"json" | "slack">("json");
  const [events, setEvents] = useState<WebhookEvent[]>(["change_point", "gate_failed"]);
  const [alpha, setAlpha] = useState(0.05);
  const err = create.error instanceof ApiError ? create.error : null;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), url: url.trim(), format, events, alpha },
      {
        onSuccess: (h) => {
          setName("");
          setUrl("");
          onCreated(h);
        },
      },
    );
  };

  return (
    <form className="form" onSubmit={onSubmit} aria-label="Create webhook">
      {create.error && !err?.fields.length ? (
        <ErrorBox error={create.error} title="Could not add the webhook" />
      ) : null}
      <div className="form-row">
        <div style={{ flex: "1 1 160px" }}>
          <Field label="Name" error={err?.fieldMessage("name")}>
            <input
              className="input"
              style={{ width: "100%" }}
              value={name}
              maxLength={200}
              placeholder="e.g. #perf channel"
              onChange={(e) => setName(e.target.value)}
            />
          </Field>
        </div>
        <div style={{ flex: "3 1 320px" }}>
          <Field
            label="URL"
            hint="http(s) only. perflab posts to whatever an owner enters here, inside your network too."
            error={err?.fieldMessage("url")}
          >
            <input
              className="input"
              style={{ width: "100%" }}
              value={url}
              maxLength={2000}
              placeholder="https://hooks.slack.com/services/…"
              onChange={(e) => setUrl(e.target.value)}
            />
          </Field>
        </div>
        <Field label="Body">
          <select
            className="input"
            aria-label="Body"
            value={format}
            onChange={(e) => setFormat(e.target.value as "json" | "slack")}
          >
            <option value="json">JSON (event, data)</option>
            <option value="slack">Slack ({"{text}"})</option>
          </select>
        </Field>
      </div>
      <div className="form-row">
        <fieldset className="field" style={{ border: "none", padding: 0, margin: 0 }}>
          <legend className="field-label">When</legend>
          <div className="checkbox-row">
            {EVENTS.map(({ event, label }) => (
              <label key={event}>
                <input
                  type="checkbox"
                  checked={events.includes(event)}
                  onChange={(e) =>
                    setEvents((prev) =>
                      e.target.checked ? [...prev, event] : prev.filter((x) => x !== event),
                    )
                  }
                />
                {label}
              </label>
            ))}
          </div>
          {events.length === 0 ? <span className="field-error">Pick at least one event.</span> : null}
        </fieldset>
        <Field label="Change-point sensitivity">
          <select
            className="input"
            aria-label="Change-point sensitivity"
            value={alpha}
            onChange={(e) => setAlpha(Number(e.target.value))}
          >
            {SENSITIVITIES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </Field>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!name.trim() || !url.trim() || !events.length || create.isPending}
        >
          {create.isPending ? "Adding…" : "Add webhook"}
        </button>
      </div>
    </form>
  );
}

function WebhookTable({ slug, hooks, pending }: { slug: string; hooks?: Webhook[]; pending: boolean }) {
  const remove = useDeleteWebhook(slug);
  return (
    <ManagedTable
      label="Webhooks"
      columns={["Name", "URL", "Events", "Last delivery"]}
      pending={pending}
      skeletonRows={2}
      before={remove.error ? <ErrorBox error={remove.error} title="Could not delete the webhook" /> : null}
    >
      {hooks?.map((h) => (
        <tr key={h.id}>
          <td>
            {h.name} <span className="tag">{h.format}</span>
          </td>
          <td className="mono" style={{ wordBreak: "break-all" }}>
            {h.url}
          </td>
          <td>
            {h.events.map((e) => (
              <span key={e} className="tag">
                {e}
              </span>
            ))}
          </td>
          <td data-testid="last-delivery">
            {h.last_delivery ? (
              <span title={h.last_delivery.last_error ?? undefined}>
                <StatusBadge status={h.last_delivery.status} /> {h.last_delivery.event},{" "}
                {h.last_delivery.attempts} attempt{h.last_delivery.attempts === 1 ? "" : "s"},{" "}
                <TimeAgo iso={h.last_delivery.created_at} />
                {h.last_delivery.last_error ? (
                  <span className="muted"> · {h.last_delivery.last_error}</span>
                ) : null}
              </span>
            ) : (
              <span className="faint">none yet</span>
            )}
          </td>
          <td style={{ textAlign: "right" }}>
            <button
              type="button"
              className="btn btn-sm btn-danger"
              aria-label={`Delete webhook ${h.name}`}
              disabled={remove.isPending}
              onClick={() => remove.mutate(h.id)}
            >
              Delete
            </button>
          </td>
        </tr>
      ))}
    </ManagedTable>
  );
}

function SecretDialog({ hook, onClose }: { hook: WebhookCreated | null; onClose: () => void }) {
  return (
    <SecretOnceDialog
      secret={hook?.secret ?? null}
      title={`Webhook "${hook?.name ?? ""}" added`}
      onClose={onClose}
      warning={{
        title: "Copy the signing secret now: it will not be shown again",
        body: (
          <>
            Each request carries <code>X-Perflab-Signature: sha256=HMAC-SHA256(secret, body)</code>; check it
            before trusting the body.
          </>
        ),
      }}
      copyLabel="Copy secret"
      testId="webhook-secret"
    />
  );
}
