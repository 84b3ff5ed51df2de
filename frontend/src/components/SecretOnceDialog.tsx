// A new secret (an agent token, a webhook's signing secret) shown exactly once: the server keeps only a
// hash or will not show it again, so the dialog says so, offers a copy button and waits for "copied".
import type { ReactNode } from "react";
import { CopyButton } from "./CopyButton";
import { Dialog } from "./Dialog";

interface Props {
  /** The secret; null keeps the dialog closed. */
  secret: string | null;
  title: string;
  onClose: () => void;
  warning: { title: string; body: ReactNode };
  copyLabel: string;
  testId: string;
  /** What to do with it (commands, how to check a signature). */
  children?: ReactNode;
}

export function SecretOnceDialog({ secret, title, onClose, warning, copyLabel, testId, children }: Props) {
  return (
    <Dialog
      open={secret !== null}
      title={title}
      onClose={onClose}
      footer={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          I have copied it
        </button>
      }
    >
      {secret !== null ? (
        <>
          <div className="alert alert-warn" role="alert">
            <span className="alert-title">{warning.title}</span>
            <span>{warning.body}</span>
          </div>
          <div className="secret">
            <code data-testid={testId}>{secret}</code>
            <CopyButton text={secret} label={copyLabel} className="btn" />
          </div>
          {children}
        </>
      ) : null}
    </Dialog>
  );
}
