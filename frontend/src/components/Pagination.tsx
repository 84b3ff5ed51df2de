// Server-side pagination controls: "1–50 of 312", previous/next.
import { formatInt } from "@/lib/format";

interface Props {
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
}

export function Pagination({ page, pageSize, total, onPage }: Props) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  return (
    <nav className="pagination" aria-label="Pagination">
      <span className="num">
        {formatInt(first)}–{formatInt(last)} of {formatInt(total)}
      </span>
      <span className="actions">
        <button type="button" className="btn btn-sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          ← Previous
        </button>
        <span className="num">
          Page {page} of {pages}
        </span>
        <button
          type="button"
          className="btn btn-sm"
          disabled={page >= pages}
          onClick={() => onPage(page + 1)}
        >
          Next →
        </button>
      </span>
    </nav>
  );
}
