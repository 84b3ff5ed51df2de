// Shows a new token's secret exactly once. The server stores only its hash, so closing this dialog
// loses it for good: say so, offer a copy button, and show the commands with the token filled in.
import { CodeBlock } from "@/components/CodeBlock";
import { CopyButton } from "@/components/CopyButton";
import { Dialog } from "@/components/Dialog";
import { agentCommands } from "@/lib/agent-commands";
import type { TokenCreated } from "../api";

interface Props {
  slug: string;
  token: TokenCreated | null;
  onClose: () => void;
}

export function NewTokenDialog({ slug, token, onClose }: Props) {
  const cmd = token ? agentCommands(window.location.origin, slug, token.token) : null;
  return (
    <Dialog
      open={token !== null}
      title={`Token "${token?.name ?? ""}" created`}
      onClose={onClose}
      footer={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          I have copied it
        </button>
      }
    >
      {token && cmd ? (
        <>
          <div className="alert alert-warn" role="alert">
            <span className="alert-title">Copy it now: it will not be shown again</span>
            <span>perflab keeps only a hash. If you lose it, revoke it and create another.</span>
          </div>
          <div className="secret">
            <code data-testid="new-token">{token.token}</code>
            <CopyButton text={token.token} label="Copy token" className="btn" />
          </div>
          <div className="muted" style={{ fontSize: 12.5 }}>
            Scopes: {token.scopes.join(", ")}. Start an agent daemon with it:
          </div>
          <CodeBlock code={`${cmd.download}\n${cmd.daemon}`} label="Start an agent daemon" />
        </>
      ) : null}
    </Dialog>
  );
}
