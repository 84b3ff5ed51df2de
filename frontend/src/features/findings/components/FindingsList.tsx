// Findings as the engineer would say them: the bottleneck, the evidence (linked where the run page
// shows it) and the knob, with a button that turns the suggestion into a decision.
import { Link } from "react-router";
import { countOf } from "@/lib/format";
import type { Finding } from "../api";
import { evidenceHref, SEVERITY_TONE } from "../evidence";

interface Props {
  findings: Finding[];
  /** Link target for evidence: the run page of the finding's run. */
  runPath?: (runId: string) => string;
  onDecide?: (f: Finding) => void;
}

export function FindingsList({ findings, runPath, onDecide }: Props) {
  return (
    <ul className="findings-list">
      {findings.map((f) => (
        <li key={`${f.rule}-${f.run_id}-${f.title}`} className="finding" data-testid={`finding-${f.rule}`}>
          <div className="finding-head">
            <span className={SEVERITY_TONE[f.severity]}>{f.severity}</span>
            <strong className="finding-title">{f.title}</strong>
            {f.runs != null && f.of_runs ? (
              <span className="faint">
                {f.runs} of {countOf(f.of_runs, "run")}
              </span>
            ) : null}
          </div>
          {f.suggestion ? (
            <div className="finding-knob">
              {f.suggestion.component ? <span className="tag">{f.suggestion.component}</span> : null}
              <code>{f.suggestion.knob}</code> {f.suggestion.from} → <strong>{f.suggestion.to}</strong>
              {onDecide ? (
                <button type="button" className="btn btn-sm" onClick={() => onDecide(f)}>
                  Make a decision
                </button>
              ) : null}
            </div>
          ) : null}
          <ul className="finding-evidence" aria-label={`Evidence of ${f.rule}`}>
            {f.evidence.map((e) => {
              const href = runPath ? evidenceHref(e, runPath(f.run_id)) : null;
              return (
                <li key={`${e.kind}-${e.label}`}>
                  <span className="faint">{e.kind}</span>{" "}
                  {href ? <Link to={href}>{e.label}</Link> : <span>{e.label}</span>}: {e.value}
                </li>
              );
            })}
          </ul>
          <a className="faint" href={f.docs} target="_blank" rel="noreferrer noopener">
            why ({f.rule})
          </a>
        </li>
      ))}
    </ul>
  );
}
