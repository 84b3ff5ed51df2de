// Placeholder for the side-by-side comparison. The history's "Compare" button already links here with
// the selection in the URL (?e=ID&e=ID), which the compare feature will read.
import { Link, useParams, useSearchParams } from "react-router";
import { EmptyState } from "@/components/EmptyState";
import { readIntList } from "@/lib/url-state";

export function ComparePage() {
  const { slug = "" } = useParams();
  const [params] = useSearchParams();
  const ids = readIntList(params, "e");
  const back = `/p/${slug}?${ids.map((id) => `sel=${id}`).join("&")}`;
  return (
    <main className="page">
      <div className="page-header">
        <div>
          <h1>Compare</h1>
          <div className="subtitle">{ids.length} experiments selected.</div>
        </div>
      </div>
      <section className="card">
        <EmptyState
          title="Comparison is not available yet"
          action={
            <Link className="btn" to={back}>
              Back to the selection
            </Link>
          }
        >
          <p>
            The side-by-side table with deltas against a baseline and a noise verdict per metric arrives next.
          </p>
        </EmptyState>
      </section>
    </main>
  );
}
