// The Findings panel at the top of a run page.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox } from "@/components/ErrorBox";
import type { DecisionPick } from "@/lib/slots";
import { type Finding, runFindingsQueryOptions } from "../api";
import { decisionRationale } from "../evidence";
import { DecideDialog } from "./DecideDialog";
import { FindingsList } from "./FindingsList";
import { UseChecklist } from "./UseChecklist";
import "../findings.css";

interface Props {
  runId: string;
  slug: string;
  experimentId: number;
  experimentName: string;
  live?: boolean;
}

export function toPick(f: Finding, experiment: string): DecisionPick | null {
  if (!f.suggestion) return null;
  return {
    experiment,
    component: f.suggestion.component,
    knob: f.suggestion.knob,
    before: f.suggestion.from,
    after: f.suggestion.to,
    rationale: decisionRationale(f),
  };
}

export function RunFindings({ runId, slug, experimentId, experimentName, live = false }: Props) {
  const q = useQuery(runFindingsQueryOptions(runId, live));
  const [pick, setPick] = useState<DecisionPick | null>(null);
  if (q.error)
    return <ErrorBox error={q.error} title="Could not read the findings" onRetry={() => q.refetch()} />;
  if (!q.data) return null;
  const findings = q.data.findings;
  return (
    <section className="card findings" aria-label="Findings" data-testid="run-findings">
      <div className="card-body">
        <h2 className="findings-heading">
          Findings{" "}
          <span className="faint">
            {findings.length
              ? `${findings.length} of ${q.data.rules} rules fired`
              : `none of ${q.data.rules} rules fired`}
          </span>
        </h2>
        {findings.length ? (
          <FindingsList
            findings={findings}
            runPath={() => `/p/${slug}/runs/${runId}`}
            onDecide={(f) => setPick(toPick(f, experimentName))}
          />
        ) : null}
        <UseChecklist runId={runId} live={live} />
      </div>
      <DecideDialog slug={slug} experimentId={experimentId} pick={pick} onClose={() => setPick(null)} />
    </section>
  );
}
