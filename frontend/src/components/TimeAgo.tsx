// A relative time ("5 min ago") with the exact local time on hover and for screen readers.
import { formatDateTime, formatRelative } from "@/lib/format";

export function TimeAgo({ iso, empty = "—" }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span className="faint">{empty}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)} className="nowrap">
      {formatRelative(iso)}
    </time>
  );
}
