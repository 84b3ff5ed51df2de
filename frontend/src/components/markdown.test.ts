// The note renderer against the payloads of RELIABILITY.md item 2: they must come out as inert text.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./Markdown";

const render = (source: string) => renderToStaticMarkup(createElement(Markdown, { source }));

describe("Markdown", () => {
  it("shows raw HTML as text, never as elements or attributes", () => {
    const html = render("before <img src=x onerror=alert(1)> after\n\n<script>alert(1)</script>");
    expect(html).not.toMatch(/<img|<script|<[^>]*onerror/i);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("keeps quotes in text unchanged", () => {
    expect(render("';alert(1);//")).toContain("&#x27;;alert(1);//");
  });

  it("links only http(s) and in-app paths", () => {
    const html = render(
      "[ok](https://nginx.org/r/proxy_buffers) [app](/c/abc) [bad](javascript:alert(1)) [data](data:text/html,x)",
    );
    expect(html).toContain('href="https://nginx.org/r/proxy_buffers"');
    expect(html).toContain('rel="noopener noreferrer nofollow"');
    expect(html).toContain('href="/c/abc"');
    expect(html).not.toMatch(/javascript:|data:text/);
    expect(html.match(/<a /g)?.length).toBe(2);
  });

  it("does not load images", () => {
    const html = render("![graph](https://tracker.example/pixel.png)");
    expect(html).not.toMatch(/<img|<link/);
    expect(html).toContain("[graph: https://tracker.example/pixel.png]");
  });

  it("renders GitHub tables (pasted comparison tables)", () => {
    const html = render("| metric | direct |\n|---|---:|\n| RPS | 12,789 |");
    expect(html).toContain("<table>");
    expect(html).toContain('<td style="text-align:right">12,789</td>');
  });
});
