// Copy as Markdown (the result table with a link back, for a pull request) and downloads.
import { CopyButton } from "@/components/CopyButton";
import { type CompareReply, type CompareSource, exportHref } from "../api";
import { comparisonMarkdown } from "../markdown";

interface Props {
  reply: CompareReply;
  source: CompareSource;
  /** The link written under the table (read at click time: the URL may have changed). */
  link: () => string;
}

export function CompareActions({ reply, source, link }: Props) {
  const csv = exportHref(source, "csv");
  const json = exportHref(source, "json");
  return (
    <div className="actions">
      <MarkdownCopy reply={reply} link={link} />
      {csv ? (
        <a className="btn" href={csv} download>
          Export CSV
        </a>
      ) : null}
      {json ? (
        <a className="btn" href={json} download>
          Export JSON
        </a>
      ) : null}
    </div>
  );
}

function MarkdownCopy({ reply, link }: Pick<Props, "reply" | "link">) {
  // CopyButton takes the text up front; building it is cheap (a dozen rows), so do it per render.
  return <CopyButton text={comparisonMarkdown(reply, link())} label="Copy as Markdown" className="btn" />;
}
