// Agent tokens of a project: create (shown once), list by hint, revoke.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useParams } from "react-router";
import { Dialog } from "@/components/Dialog";
import { EmptyState } from "@/components/EmptyState";
import { ErrorBox } from "@/components/ErrorBox";
import { ManagedTable, OwnerManagedList } from "@/components/OwnerManagedList";
import { StatusBadge } from "@/components/StatusBadge";
import { TimeAgo } from "@/components/TimeAgo";
import { useTitle } from "@/lib/use-title";
import { type Token, type TokenCreated, tokensQueryOptions, useRevokeToken } from "../api";
import { CreateTokenForm } from "./CreateTokenForm";
import { NewTokenDialog } from "./NewTokenDialog";

export function TokensPage() {
  const { slug = "" } = useParams();
  const tokens = useQuery(tokensQueryOptions(slug));
  useTitle("Agent tokens", slug);
  const [created, setCreated] = useState<TokenCreated | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);

  return (
    <OwnerManagedList
      title="Agent tokens"
      subtitle="Tokens let agents and scripts talk to this project. Each is shown once, stored hashed, and can be revoked."
      newTitle="New token"
      newTitleId="new-token-title"
      form={<CreateTokenForm slug={slug} onCreated={setCreated} />}
      list={tokens}
      listLabel="Tokens"
      empty={
        <EmptyState title="No tokens yet — create one above to connect an agent">
          <p>
            Agents send their runs with a token of this project: one per lab or per machine makes revoking
            easy.
          </p>
        </EmptyState>
      }
      table={<TokenTable tokens={tokens.data} pending={tokens.isPending} onRevoke={setRevoking} />}
    >
      <NewTokenDialog slug={slug} token={created} onClose={() => setCreated(null)} />
      <RevokeDialog slug={slug} token={revoking} onClose={() => setRevoking(null)} />
    </OwnerManagedList>
  );
}

function TokenTable({
  tokens,
  pending,
  onRevoke,
}: {
  tokens?: Token[];
  pending: boolean;
  onRevoke: (t: Token) => void;
}) {
  return (
    <ManagedTable
      label="Tokens"
      columns={["Name", "Token", "Scopes", "Created", "Last used", "Status"]}
      pending={pending}
      skeletonRows={3}
    >
      {tokens?.map((t) => (
        <tr key={t.id} className={t.revoked_at ? "row-muted" : undefined}>
          <td>{t.name}</td>
          <td className="mono" title="Only the first characters are kept in clear, to recognise it">
            plb_{t.hint}…
          </td>
          <td>
            {t.scopes.map((s) => (
              <span key={s} className="tag">
                {s}
              </span>
            ))}
          </td>
          <td>
            <TimeAgo iso={t.created_at} />
          </td>
          <td>
            <TimeAgo iso={t.last_used_at} empty="never" />
          </td>
          <td>
            {t.revoked_at ? (
              <span>
                <StatusBadge status="revoked" /> <TimeAgo iso={t.revoked_at} />
              </span>
            ) : (
              <StatusBadge status="active" />
            )}
          </td>
          <td style={{ textAlign: "right" }}>
            {t.revoked_at ? null : (
              <button
                type="button"
                className="btn btn-sm btn-danger"
                aria-label={`Revoke token ${t.name}`}
                onClick={() => onRevoke(t)}
              >
                Revoke
              </button>
            )}
          </td>
        </tr>
      ))}
    </ManagedTable>
  );
}

function RevokeDialog({ slug, token, onClose }: { slug: string; token: Token | null; onClose: () => void }) {
  const revoke = useRevokeToken(slug);
  const close = () => {
    revoke.reset();
    onClose();
  };
  return (
    <Dialog
      open={token !== null}
      title={`Revoke "${token?.name ?? ""}"?`}
      onClose={close}
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-danger"
            disabled={revoke.isPending}
            onClick={() => token && revoke.mutate(token.id, { onSuccess: close })}
          >
            {revoke.isPending ? "Revoking…" : "Revoke token"}
          </button>
        </>
      }
    >
      <p style={{ margin: 0 }}>
        Agents using <code>plb_{token?.hint}…</code> are refused from their next request. They keep spooling
        what they capture, so give them a new token to deliver it.
      </p>
      {revoke.error ? <ErrorBox error={revoke.error} title="Could not revoke" /> : null}
    </Dialog>
  );
}
