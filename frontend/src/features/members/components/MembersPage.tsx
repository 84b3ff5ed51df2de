// Who can see and change this project. Owners add people by email, change roles and remove them;
// everyone else sees the list and their own role.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useParams } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { Field } from "@/components/Field";
import { SkeletonRows } from "@/components/Skeleton";
import { TimeAgo } from "@/components/TimeAgo";
import { useTitle } from "@/lib/use-title";
import {
  type Member,
  type MemberRole,
  memberShareLinksQueryOptions,
  membersQueryOptions,
  ROLES,
  useAddMember,
  useRemoveMember,
  useUpdateMember,
} from "../api";

export function MembersPage() {
  const { slug = "" } = useParams();
  useTitle("Members", slug);
  const members = useQuery(membersQueryOptions(slug));
  const myRole = members.data?.my_role ?? null;
  const canManage = myRole === "owner" || myRole === "admin";
  const update = useUpdateMember(slug);
  const remove = useRemoveMember(slug);
  const [removing, setRemoving] = useState<Member | null>(null);

  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Members</h1>
          <div className="subtitle">
            {myRole ? (
              <>You are {myRole === "admin" ? "an admin (every project)" : `a ${myRole}`} here. </>
            ) : null}
            Owners manage members, tokens and settings; members write; viewers read.
          </div>
        </div>
      </div>

      {canManage ? <AddMemberForm slug={slug} /> : null}
      {members.error ? <ErrorBox error={members.error} /> : null}
      {update.error ? <ErrorBox error={update.error} title="Could not change the role" /> : null}
      {remove.error ? <ErrorBox error={remove.error} title="Could not remove the member" /> : null}

      {removing ? (
        <ConfirmRemove
          slug={slug}
          member={removing}
          pending={remove.isPending}
          onCancel={() => setRemoving(null)}
          onConfirm={(revokeShareLinks) =>
            remove.mutate(
              { userId: removing.user_id, revokeShareLinks },
              { onSettled: () => setRemoving(null) },
            )
          }
        />
      ) : null}

      <section className="card" aria-label="Members">
        <div className="table-wrap">
          <table className="table" aria-label="Members">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
                {canManage ? (
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            {members.isPending ? (
              <SkeletonRows rows={3} columns={canManage ? 4 : 3} />
            ) : (
              <tbody>
                {members.data?.members.map((m) => (
                  <tr key={m.user_id}>
                    <td>{m.email}</td>
                    <td>
                      {canManage ? (
                        <select
                          className="input"
                          aria-label={`Role of ${m.email}`}
                          value={m.role}
                          disabled={update.isPending}
                          onChange={(e) =>
                            update.mutate({ userId: m.user_id, role: e.target.value as MemberRole })
                          }
                        >
                          {ROLES.map((r) => (
                            <option key={r.role} value={r.role}>
                              {r.role}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <span className="tag">{m.role}</span>
                      )}
                    </td>
                    <td>
                      <TimeAgo iso={m.created_at} />
                    </td>
                    {canManage ? (
                      <td style={{ textAlign: "right" }}>
                        <button
                          type="button"
                          className="btn btn-sm btn-danger"
                          aria-label={`Remove ${m.email}`}
                          disabled={remove.isPending}
                          onClick={() => setRemoving(m)}
                        >
                          Remove
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            )}
          </table>
        </div>
      </section>
    </main>
  );
}

function AddMemberForm({ slug }: { slug: string }) {
  const add = useAddMember(slug);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<MemberRole>("member");

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ email: email.trim(), role }, { onSuccess: () => setEmail("") });
  };

  return (
    <section className="card" aria-labelledby="add-member-title">
      <div className="card-header">
        <h2 id="add-member-title">Add a member</h2>
      </div>
      <div className="card-body">
        <form className="form" onSubmit={onSubmit} aria-label="Add member">
          {add.error ? <ErrorBox error={add.error} title="Could not add the member" /> : null}
          <div className="form-row">
            <div style={{ flex: "1 1 260px" }}>
              <Field label="Email" hint="An existing account; admins create accounts.">
                <input
                  className="input"
                  type="email"
                  style={{ width: "100%" }}
                  value={email}
                  maxLength={320}
                  placeholder="name@example.com"
                  onChange={(e) => setEmail(e.target.value)}
                />
              </Field>
            </div>
            <Field label="Role" hint={ROLES.find((r) => r.role === role)?.help}>
              <select className="input" value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
                {ROLES.map((r) => (
                  <option key={r.role} value={r.role}>
                    {r.role}
                  </option>
                ))}
              </select>
            </Field>
            <button type="submit" className="btn btn-primary" disabled={!email.trim() || add.isPending}>
              {add.isPending ? "Adding…" : "Add member"}
            </button>
          </div>
        </form>
      </div>
    </section>
  );
}

/** Removing someone: their public links would stay valid until they expire (up to a year), so the
 * owner is offered to revoke them too (checked by default). */
function ConfirmRemove({
  slug,
  member,
  pending,
  onCancel,
  onConfirm,
}: {
  slug: string;
  member: Member;
  pending: boolean;
  onCancel: () => void;
  onConfirm: (revokeShareLinks: boolean) => void;
}) {
  const links = useQuery(memberShareLinksQueryOptions(slug));
  const theirs = (links.data ?? []).filter(
    (l) => l.status === "active" && l.created_by === member.email,
  ).length;
  const [revoke, setRevoke] = useState(true);
  return (
    <section className="card" role="alertdialog" aria-labelledby="remove-member-title">
      <div className="card-body">
        <h2 id="remove-member-title" style={{ fontSize: 15, margin: "0 0 8px" }}>
          Remove {member.email}?
        </h2>
        <label style={{ display: "flex", gap: 8, alignItems: "center" }}>
          <input type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} />
          Also revoke the public share links they created
          {links.data ? ` (${theirs} active)` : ""}
        </label>
        <div className="actions" style={{ marginTop: 12 }}>
          <button
            type="button"
            className="btn btn-sm btn-danger"
            disabled={pending}
            onClick={() => onConfirm(revoke)}
          >
            {pending ? "Removing…" : "Remove"}
          </button>
          <button type="button" className="btn btn-sm btn-ghost" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </section>
  );
}
