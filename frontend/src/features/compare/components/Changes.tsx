// What changed between the baseline and each experiment: knob changes read from the config diff (each
// can become a decision), then unified diffs of config snapshots, sysctls and host facts as text.
import type { ChangeSet, CompareReply } from "../api";

export interface KnobPick {
  experiment: string;
  baseline: string;
  component: string;
  knob: string;
  before: string;
  after: string;
}

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "diff-head";
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "";
}

/** A unified diff as monospace text; +/- stay in the text, the colour only helps. */
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.split("\n");
  return (
    <pre className="diff">
      <code>
        {lines.map((l, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
          <span key={i} className={lineClass(l)}>
            {l || " "}
          </span>
        ))}
      </code>
    </pre>
  );
}

const STATUS_WORD: Record<string, string> = {
  changed: "changed",
  added: "only in the experiment",
  removed: "only in the baseline",
  binary: "not diffed",
  same: "unchanged",
};

function ChangeSetView({ cs, onDecide }: { cs: ChangeSet; onDecide?: (k: KnobPick) => void }) {
  const differing = cs.files.filter((f) => f.status !== "same");
  const same = cs.files.filter((f) => f.status === "same");
  return (
    <div className="cmp-changeset" data-testid={`changes-${cs.experiment}`}>
      <h3>
        {cs.experiment} <span className="faint">vs</span> {cs.baseline}
      </h3>
      {cs.knob_changes.length ? (
        <ul className="cmp-knobs" aria-label={`Knob changes of ${cs.experiment}`}>
          {cs.knob_changes.map((k) => (
            <li key={`${k.file}:${k.context}:${k.knob}`}>
              <span className="tag">{k.component}</span>
              <span className="cmp-knob">
                <strong>{k.knob}</strong> <del>{k.before}</del> → <ins>{k.after}</ins>
              </span>
              <span className="faint" style={{ fontSize: 12 }}>
                {k.file}
                {k.context ? ` · ${k.context}` : ""}
              </span>
              {onDecide ? (
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() =>
                    onDecide({
                      experiment: cs.experiment,
                      baseline: cs.baseline,
                      component: k.component,
                      knob: k.knob,
                      before: k.before,
                      after: k.after,
                    })
                  }
                >
                  Record decision
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted" style={{ margin: "0 0 6px" }}>
          No knob changes read from config snapshots on both sides.
        </p>
      )}
      {differing.map((f) => (
        <details
          key={`${f.kind}:${f.role}:${f.name}`}
          className="cmp-file"
          open={f.status === "changed" && f.kind !== "host_facts"}
        >
          <summary>
            <span className="mono">{f.name}</span>
            <span className="faint">{f.role}</span>
            <span className={f.status === "changed" ? "badge badge-warn" : "badge"}>
              {STATUS_WORD[f.status] ?? f.status}
            </span>
            {f.truncated ? <span className="faint">diff cut at 2,000 lines</span> : null}
          </summary>
          {f.diff ? <DiffView diff={f.diff} /> : null}
        </details>
      ))}
      {same.length ? (
        <p className="faint" style={{ margin: "6px 0 0", fontSize: 12.5 }}>
          Unchanged: {same.map((f) => `${f.name}${f.kind !== "host_facts" ? ` (${f.role})` : ""}`).join(", ")}
        </p>
      ) : null}
    </div>
  );
}

export function ChangesSection({
  reply,
  onDecide,
}: {
  reply: CompareReply;
  onDecide?: (k: KnobPick) => void;
}) {
  if (!reply.changes.length) return <p className="muted">Only the baseline is selected.</p>;
  return (
    <>
      {reply.changes.map((cs) => (
        <ChangeSetView key={cs.experiment} cs={cs} onDecide={onDecide} />
      ))}
    </>
  );
}
