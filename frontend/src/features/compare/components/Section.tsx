// A foldable card of the compare page. Folded sections render nothing inside, so they fetch nothing;
// whether a section is folded is part of the URL (and of a saved comparison).
import { type ReactNode, useId } from "react";
import type { SectionId } from "../view-state";

interface Props {
  id: SectionId;
  title: string;
  hint?: ReactNode;
  hidden: boolean;
  onToggle: (id: SectionId) => void;
  actions?: ReactNode;
  children: ReactNode;
}

export function Section({ id, title, hint, hidden, onToggle, actions, children }: Props) {
  const headingId = useId();
  const bodyId = useId();
  return (
    <section
      className="card cmp-section"
      aria-labelledby={headingId}
      data-hidden={hidden}
      data-testid={`section-${id}`}
    >
      <div className="card-header">
        <h2 id={headingId}>
          {title}
          {hint ? <span className="cmp-section-hint">{hint}</span> : null}
        </h2>
        <div className="actions">
          {!hidden ? actions : null}
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            aria-expanded={!hidden}
            aria-controls={bodyId}
            onClick={() => onToggle(id)}
          >
            {hidden ? "Show" : "Hide"}
            <span className="sr-only"> {title}</span>
          </button>
        </div>
      </div>
      {hidden ? null : (
        <div id={bodyId} className="card-body">
          {children}
        </div>
      )}
    </section>
  );
}
