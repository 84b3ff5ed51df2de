// A page of things a project's owners manage (agent tokens, webhooks): a "New ..." card with the
// create form, then the list (its error with a retry, an empty state saying what to do, or the table),
// then the page's dialogs. Where the page gates on the caller's role, other roles see `locked` instead.
import type { ReactNode } from "react";
import { ErrorBox } from "./ErrorBox";
import { SkeletonRows } from "./Skeleton";

interface Props {
  title: string;
  subtitle: ReactNode;
  /** The create card's heading ("New token") and the id that labels it. */
  newTitle: string;
  newTitleId: string;
  form: ReactNode;
  /** The list's query: its rows (undefined while loading), error and retry. */
  list: { data?: readonly unknown[]; error: unknown; refetch: () => unknown };
  listLabel: string;
  /** Shown when the list is loaded and empty. */
  empty: ReactNode;
  /** The table (it shows its own loading rows). */
  table: ReactNode;
  /** When set, shown in place of the form and the list: the caller may not manage these. */
  locked?: ReactNode;
  /** Dialogs (a secret shown once, a confirmation). */
  children?: ReactNode;
}

export function OwnerManagedList(props: Props) {
  const { list } = props;
  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>{props.title}</h1>
          <div className="subtitle">{props.subtitle}</div>
        </div>
      </div>

      {props.locked ? (
        <section className="card">{props.locked}</section>
      ) : (
        <>
          <section className="card" aria-labelledby={props.newTitleId}>
            <div className="card-header">
              <h2 id={props.newTitleId}>{props.newTitle}</h2>
            </div>
            <div className="card-body">{props.form}</div>
          </section>
          {list.error ? <ErrorBox error={list.error} onRetry={() => list.refetch()} /> : null}
          <section className="card" aria-label={props.listLabel}>
            {list.data?.length === 0 ? props.empty : props.table}
          </section>
        </>
      )}
      {props.children}
    </main>
  );
}

/** The list's table: named columns and a last one for the row's actions; loading rows until it has data. */
export function ManagedTable({
  label,
  columns,
  pending,
  skeletonRows,
  before,
  children,
}: {
  label: string;
  columns: string[];
  pending: boolean;
  skeletonRows: number;
  /** Above the table, e.g. why a delete failed. */
  before?: ReactNode;
  /** The rows, one `<tr>` each, with the actions last. */
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      {before}
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        {pending ? (
          <SkeletonRows rows={skeletonRows} columns={columns.length + 1} />
        ) : (
          <tbody>{children}</tbody>
        )}
      </table>
    </div>
  );
}
