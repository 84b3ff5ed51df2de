// Which link targets user-written content (notes, rationales) may point at. Only http(s) and in-app
// paths: `javascript:`, `data:`, `vbscript:`, `file:` and anything unparsable lose their link and keep
// their text, so a note can never run code or smuggle a download when clicked.

/** The URL if it is safe to put in an href, else null. */
export function safeHref(raw: string | null | undefined): string | null {
  if (typeof raw !== "string") return null;
  // Browsers ignore leading/trailing whitespace and strip tabs/newlines inside a scheme
  // ("java\tscript:"), so judge the string the way the browser will read it.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  const url = raw.trim().replace(/[\u0000-\u001f\u007f]/g, "");
  if (!url) return null;
  // An in-app absolute path ("/c/abc123"); "//host" and "/\host" are other origins in disguise.
  if (url.startsWith("/")) return url.startsWith("//") || url.startsWith("/\\") ? null : url;
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}
