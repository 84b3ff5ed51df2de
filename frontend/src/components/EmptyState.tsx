// An empty list always says what to do next.
import type { ReactNode } from "react";

interface Props {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}

export function EmptyState({ title, children, action }: Props) {
  return (
    <div className="empty">
      <div className="empty-title">{title}</div>
      {children}
      {action ? <div className="actions">{action}</div> : null}
    </div>
  );
}
