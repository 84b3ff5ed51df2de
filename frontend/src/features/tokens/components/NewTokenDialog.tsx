// Shows a new token's secret exactly once. The server stores only its hash, so closing this dialog
// loses it for good: say so, offer a copy button, and show the commands with the token filled in.
import { CodeBlock } from "@/components/CodeBlock";
import { SecretOnceDialog } from "@/components/SecretOnceDialog";
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
    <SecretOnceDialog
      secret={token?.token ?? null}
      title={`Token "${token?.name ?? ""}" created`}
      onClose={onClose}
      warning={{
        title: "Copy it now: it will not be shown again",
        body: "perflab keeps only a hash. If you lose it, revoke it and create another.",
      }}
      copyLabel="Copy token"
      testId="new-token"
    >
      {token && cmd ? (
        <>
          <div className="muted" style={{ fontSize: 12.5 }}>
            Scopes: {token.scopes.join(", ")}. Start an agent daemon with it:
          </div>
          <CodeBlock code={`${cmd.download}\n${cmd.daemon}`} label="Start an agent daemon" />
        </>
      ) : null}
    </SecretOnceDialog>
  );
}
