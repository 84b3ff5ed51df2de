// A command the user is meant to paste into a terminal, with a copy button.
import { CopyButton } from "./CopyButton";

export function CodeBlock({ code, label }: { code: string; label?: string }) {
  return (
    <figure style={{ position: "relative", margin: 0 }} aria-label={label}>
      <pre className="codeblock">
        <code>{code}</code>
      </pre>
      <span className="codeblock-copy">
        <CopyButton text={code} />
      </span>
    </figure>
  );
}
