"""Headers for serving stored bytes as a download: the one place Content-Disposition is built.

Uploaded bytes are only ever a download that cannot run (a flamegraph.pl SVG carries a script):
no inline rendering on our origin, no type sniffing, no caching by shared proxies.
"""

from __future__ import annotations

from urllib.parse import quote

DOWNLOAD_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",
}
_MAX_NAME = 200


def content_disposition(name: str, *, fallback: str = "download") -> str:
    """``attachment`` with the name twice (RFC 6266): ``filename="..."`` in plain ASCII for old
    clients, and ``filename*=UTF-8''...`` (RFC 5987 percent-encoding) with the real name.

    Header values travel as Latin-1, so a name such as ``性能.svg`` put there as it is cannot be
    sent at all (it was a 500); quotes, backslashes and control characters would break the
    header's syntax.
    """
    name = "".join(ch for ch in name if ch.isprintable()).strip()[:_MAX_NAME] or fallback
    ascii_name = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "._-") else "_" for ch in name)
    header = f'attachment; filename="{ascii_name}"'
    if ascii_name != name:
        header += f"; filename*=UTF-8''{quote(name, safe='')}"
    return header


def download_headers(name: str, *, fallback: str = "download") -> dict[str, str]:
    """Every header of a download: the sandboxing ones and the Content-Disposition."""
    return {**DOWNLOAD_HEADERS, "Content-Disposition": content_disposition(name, fallback=fallback)}
