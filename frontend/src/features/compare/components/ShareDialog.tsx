// Save & share: freeze the comparison (its run ids and view) behind a short members' link, then
// optionally create a public read-only link. The public URL carries the secret and is shown once;
// the project's links are listed below with their status, and can be revoked.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CopyButton } from "@/components/CopyButton";
import { Dialog } from "@/components/Dialog";
import { ErrorBox } from "@/components/ErrorBox";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { formatDateTime } from "@/lib/format";
import {
  type ShareLinkCreated,
  shareLinksQueryOptions,
  useCreateShareLink,
  useRevokeShareLink,
} from "../api";

const EXPIRY_DAYS = [7, 30, 90, 180, 365] as const;
const DEFAULT_EXPIRY = 90;

interface Props {
  open: boolean;
  onClose: () => void;
  slug: string;
  /** The saved comparison, once there is one. */
  saved: { shortId: string; url: string } | null;
  /** Saves the snapshot (live page); absent when the page already shows a saved one. */
  onSave?: (title: string) => Promise<unknown>;
  saving?: boolean;
  saveError?: unknown;
  defaultTitle: string;
  /** A public link was just created: Copy as Markdown writes it under the table. */
  onPublicLink?: (url: string) => void;
}

export function ShareDialog({
  open,
  onClose,
  slug,
  saved,
  onSave,
  saving,
  saveError,
  defaultTitle,
  onPublicLink,
}: Props) {
  const [title, setTitle] = useState(defaultTitle);
  const [days, setDays] = useState<number>(DEFAULT_EXPIRY);
  const [note, setNote] = useState("");
  const [created, setCreated] = useState<ShareLinkCreated | null>(null);
  const share = useCreateShareLink(slug);
  const memberUrl = saved ? `${window.location.origin}/c/${saved.shortId}` : null;

  return (
    <Dialog
      open={open}
      title="Save & share"
      onClose={() => {
        // The public URL is shown once: closing forgets it.
        setCreated(null);
        onClose();
      }}
      footer={
        <button
          type="button"
          className="btn"
          onClick={() => {
            setCreated(null);
            onClose();
          }}
        >
          Done
        </button>
      }
    >
      {!saved ? (
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            void onSave?.(title);
          }}
        >
          <p className="muted" style={{ margin: 0 }}>
            Saving freezes this comparison: its runs, baseline and view. Runs added to these experiments later
            do not change it.
          </p>
          <div className="field">
            <label htmlFor="share-title" className="field-label">
              Title
            </label>
            <input
              id="share-title"
              className="input"
              value={title}
              maxLength={200}
              onChange={(e) => setTitle(e.target.value)}
            />
          </div>
          {saveError ? <ErrorBox error={saveError} title="Could not save the comparison" /> : null}
          <div className="actions">
            <button type="submit" className="btn btn-primary" disabled={saving}>
              {saving ? "Saving…" : "Save snapshot"}
            </button>
          </div>
        </form>
      ) : (
        <>
          <div className="field">
            <span className="field-label">Link for project members</span>
            <div className="share-url">
              <code data-testid="member-url">{memberUrl}</code>
              <CopyButton text={memberUrl ?? ""} label="Copy link" className="btn btn-sm" />
            </div>
          </div>

          <h3 style={{ fontSize: 14, margin: "8px 0 0" }}>Public read-only link</h3>
          {created ? (
            <div className="form" data-testid="public-link">
              <div className="alert alert-warn" role="alert">
                <span className="alert-title">Copy it now: it will not be shown again</span>
                <span>
                  Anyone with this link can read this comparison, without logging in, until{" "}
                  {formatDateTime(created.expires_at)} or until you revoke it.
                </span>
              </div>
              <div className="share-url secret">
                <code data-testid="public-url">{created.url}</code>
                <CopyButton text={created.url} label="Copy public link" className="btn btn-sm" />
              </div>
            </div>
          ) : (
            <form
              className="form-row"
              style={{ display: "flex", gap: 8, alignItems: "flex-end", flexWrap: "wrap" }}
              onSubmit={(e) => {
                e.preventDefault();
                share.mutate(
                  { shortId: saved.shortId, expires_in_days: days, note },
                  {
                    onSuccess: (link) => {
                      setCreated(link);
                      onPublicLink?.(link.url);
                    },
                  },
                );
              }}
            >
              <div className="field">
                <label htmlFor="share-expiry" className="field-label">
                  Expires after
                </label>
                <select
                  id="share-expiry"
                  className="select"
                  value={days}
                  onChange={(e) => setDays(Number(e.target.value))}
                >
                  {EXPIRY_DAYS.map((d) => (
                    <option key={d} value={d}>
                      {d} days{d === DEFAULT_EXPIRY ? " (default)" : ""}
                    </option>
                  ))}
                </select>
              </div>
              <div className="field grow" style={{ flex: 1, minWidth: 180 }}>
                <label htmlFor="share-note" className="field-label">
                  For (optional)
                </label>
                <input
                  id="share-note"
                  className="input"
                  placeholder="reviewer of the nginx.conf change"
                  maxLength={200}
                  value={note}
                  onChange={(e) => setNote(e.target.value)}
                />
              </div>
              <button type="submit" className="btn btn-primary" disabled={share.isPending}>
                {share.isPending ? "Creating…" : "Create public link"}
              </button>
            </form>
          )}
          {share.error ? <ErrorBox error={share.error} title="Could not create the link" /> : null}
          <ShareLinksList slug={slug} />
        </>
      )}
    </Dialog>
  );
}

/** The project's public links, newest first, with who made each. Owners (and admins) revoke any of
 * them, e.g. those of someone who left; members revoke their own. */
export function ShareLinksList({ slug }: { slug: string }) {
  const links = useQuery(shareLinksQueryOptions(slug));
  const revoke = useRevokeShareLink(slug);
  const [confirm, setConfirm] = useState<number | null>(null);
  if (links.error) return <ErrorBox error={links.error} title="Could not list the share links" />;
  if (!links.data?.length) return null;
  return (
    <div>
      <h3 style={{ fontSize: 14, margin: "12px 0 6px" }}>Public links of this project</h3>
      <div className="table-wrap">
        <table className="table" aria-label="Share links">
          <thead>
            <tr>
              <th scope="col">Comparison</th>
              <th scope="col">Link</th>
              <th scope="col">By</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              <th scope="col">Last opened</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {links.data.map((l) => (
              <tr key={l.id} data-testid="share-link-row">
                <td>
                  <a href={`/c/${l.comparison_short_id}`}>{l.comparison_title || l.comparison_short_id}</a>
                  {l.note ? <div className="faint">{l.note}</div> : null}
                </td>
                <td className="mono faint">/s/pls_{l.hint}…</td>
                <td>{l.created_by ?? <span className="faint">a former account</span>}</td>
                <td>
                  <StatusBadge status={l.status} />
                </td>
                <td className="nowrap">{formatDateTime(l.expires_at)}</td>
                <td>
                  <TimeAgo iso={l.last_used_at} empty="never" />
                </td>
                <td>
                  {l.status === "active" && l.can_revoke ? (
                    confirm === l.id ? (
                      <span className="actions">
                        <button
                          type="button"
                          className="btn btn-sm btn-danger"
                          disabled={revoke.isPending}
                          onClick={() => revoke.mutate(l.id, { onSettled: () => setConfirm(null) })}
                        >
                          Confirm revoke
                        </button>
                        <button
                          type="button"
                          className="btn btn-sm btn-ghost"
                          onClick={() => setConfirm(null)}
                        >
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button
                        type="button"
                        className="btn btn-sm"
                        aria-label={`Revoke link pls_${l.hint}`}
                        onClick={() => setConfirm(l.id)}
                      >
                        Revoke
                      </button>
                    )
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {revoke.error ? <ErrorBox error={revoke.error} title="Could not revoke the link" /> : null}
    </div>
  );
}
