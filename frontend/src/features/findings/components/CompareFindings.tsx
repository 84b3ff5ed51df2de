// The Findings panel at the top of a comparison: per experiment, with what appeared or disappeared
// against the baseline (a finding that appears or disappears is the story of the experiment).
import type { DecisionPick } from "@/lib/slots";
import type { ExperimentFindings } from "../api";
import { FindingsList } from "./FindingsList";
import { toPick } from "./RunFindings";
import "../findings.css";

interface Props {
  findings: ExperimentFindings[];
  baseline: string;
  onDecide?: (pick: DecisionPick) => void;
}

export function CompareFindings({ findings, baseline, onDecide }: Props) {
  if (!findings.some((e) => e.findings.length)) return null;
  return (
    <section className="card findings" aria-label="Findings" data-testid="compare-findings">
      <div className="card-body">
        <h2 className="findings-heading">Findings</h2>
        {findings.map((e) => (
          // One line per experiment (what fires, what appeared or went) until opened: the results table
          // above is what a reader came for.
          <details key={e.experiment} className="findings-exp" data-testid={`findings-${e.experiment}`}>
            <summary>
              <h3 style={{ display: "inline" }}>
                {e.experiment}
                {e.experiment === baseline ? <span className="faint"> (baseline)</span> : null}
                {(e.appeared ?? []).map((r) => (
                  <span
                    key={`a-${r}`}
                    className="badge badge-warn plain"
                    title="fires here, not in the baseline"
                  >
                    appeared: {r}
                  </span>
                ))}
                {(e.disappeared ?? []).map((r) => (
                  <span
                    key={`d-${r}`}
                    className="badge badge-good plain"
                    title="fires in the baseline, not here"
                  >
                    gone: {r}
                  </span>
                ))}
              </h3>{" "}
              <span className="muted">
                {e.findings.length
                  ? `${e.findings.length} finding${e.findings.length === 1 ? "" : "s"}: ${e.findings
                      .map((f) => f.title)
                      .join("; ")}`
                  : "no finding"}
              </span>
            </summary>
            {e.findings.length ? (
              <FindingsList
                findings={e.findings}
                onDecide={
                  onDecide
                    ? (f) => {
                        const pick = toPick(f, e.experiment);
                        if (pick) onDecide(pick);
                      }
                    : undefined
                }
              />
            ) : (
              <p className="muted">No finding.</p>
            )}
          </details>
        ))}
      </div>
    </section>
  );
}
