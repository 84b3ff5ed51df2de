// Markdown as one line of plain text, for places that cannot render it: chart bands, tooltips, titles.
// "**readv** storm, see [the log](https://x)" -> "readv storm, see the log". Not a parser: it drops the
// marks people type in short notes, and leaves anything else as written (text is never turned into HTML).

const RULES: [RegExp, string][] = [
  [/!\[([^\]]*)\]\([^)]*\)/g, "$1"], // images: their alt text
  [/\[([^\]]+)\]\([^)]*\)/g, "$1"], // links: their text
  [/<(https?:\/\/[^>\s]+)>/g, "$1"], // autolinks
  [/`+([^`]+)`+/g, "$1"], // code spans
  [/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2"], // strong
  [/(\*|_)(?=\S)([\s\S]*?\S)\1(?![\w*])/g, "$2"], // emphasis
  [/~~(?=\S)([\s\S]*?\S)~~/g, "$1"], // strikethrough
];

/** The first non-empty line of `source` without Markdown marks, cut to `max` characters with "…". */
export function markdownFirstLine(source: string, max = Number.POSITIVE_INFINITY): string {
  const line =
    source
      .split("\n")
      .map((l) =>
        l
          .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+)/, "")
          .replace(/\s+#+\s*$/, "")
          .trim(),
      )
      .find((l) => l && !/^([-*_]\s*){3,}$/.test(l) && !/^(```|~~~)/.test(l)) ?? "";
  // Escaped marks ("\\*") are text: set aside in the Private Use Area while the marks are dropped.
  let text = line.replace(/\\([\\`*_{}[\]()#+\-.!~>])/g, (_, c: string) =>
    String.fromCharCode(0xe000 + c.charCodeAt(0)),
  );
  for (const [re, to] of RULES) text = text.replace(re, to);
  text = text
    .replace(/[\ue000-\ue0ff]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xe000))
    .replace(/\s+/g, " ")
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
