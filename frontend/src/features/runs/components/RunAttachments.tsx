// Files (or parts of a paste) an import kept without reading them: each with why, and a download link.
import { useQuery } from "@tanstack/react-query";
import { ErrorBox } from "@/components/ErrorBox";
import { formatBytes } from "@/lib/format";
import { runAttachmentsQueryOptions } from "../api";

export function RunAttachments({ runId }: { runId: string }) {
  const q = useQuery(runAttachmentsQueryOptions(runId));
  if (q.error)
    return <ErrorBox error={q.error} title="Could not list the attachments" onRetry={() => q.refetch()} />;
  if (!q.data?.length) return null;
  return (
    <section className="card" aria-labelledby="attachments-title" data-testid="run-attachments">
      <div className="card-header">
        <h2 id="attachments-title">Attachments</h2>
        <span className="faint">kept as imported, not read</span>
      </div>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Role</th>
              <th scope="col" className="num">
                Size
              </th>
              <th scope="col">Why it was not read</th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((a) => (
              <tr key={a.id}>
                <td className="mono">
                  <a href={a.download_url} download={a.name}>
                    {a.name}
                  </a>
                </td>
                <td>{a.role ? <span className="tag">{a.role}</span> : null}</td>
                <td className="num">{formatBytes(a.size_bytes)}</td>
                <td className="muted">{a.note}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
