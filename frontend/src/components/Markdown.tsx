// User-written Markdown (notes, decision rationales) rendered as React elements, never as HTML strings:
// raw HTML in the source is shown as text, images are not loaded (a share page must fetch nothing from
// another origin, and an image URL is a tracking pixel), and links keep only http(s) or in-app targets.
import type { ComponentProps } from "react";
import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { safeHref } from "@/lib/safe-url";
import "./markdown.css";

const PLUGINS = [remarkGfm];

function Link({ href, children }: ComponentProps<"a">) {
  const safe = safeHref(href);
  if (!safe) return <span className="md-dead-link">{children}</span>;
  const external = !safe.startsWith("/");
  return (
    <a href={safe} {...(external ? { target: "_blank", rel: "noopener noreferrer nofollow" } : {})}>
      {children}
    </a>
  );
}

// An image becomes its alt text and address, so the reader still sees what was meant.
function Image({ alt, src }: ComponentProps<"img">) {
  const text = alt || "image";
  return <span className="md-image">[{typeof src === "string" && src ? `${text}: ${src}` : text}]</span>;
}

export function Markdown({ source, className }: { source: string; className?: string }) {
  return (
    <div className={className ? `markdown ${className}` : "markdown"}>
      <ReactMarkdown
        remarkPlugins={PLUGINS}
        // Anything not http(s) or an in-app path loses its href before it reaches an element.
        urlTransform={(url) => safeHref(url) ?? ""}
        components={{ a: Link, img: Image }}
      >
        {source}
      </ReactMarkdown>
    </div>
  );
}

export default Markdown;
