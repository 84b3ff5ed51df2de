"""Bytes in: gzip undone under a size cap, text decoded, the format recognised."""

from __future__ import annotations

import re
import zlib

from .model import ProfileError
from .perf import looks_like_perf_script
from .stap import DTRACE_HEADER, looks_like_stack_blocks

GZIP_MAGIC = b"\x1f\x8b"
DEFAULT_MAX_BYTES = 512 << 20  # decompressed; a 3 s perf record of a busy box is ~10-50 MB
_CHUNK = 1 << 16
_SNIFF = 1 << 16  # bytes looked at to recognise the format
_BOM = b"\xef\xbb\xbf"


def _too_large(max_bytes: int) -> ProfileError:
    return ProfileError(
        f"profile larger than {max_bytes} bytes once decompressed", too_large=True
    )


def read_capped(data: bytes, max_bytes: int) -> tuple[bytes, list[str]]:
    """The uncompressed bytes (gunzipped when they start with gzip's magic bytes).

    Decompression is streamed in bounded steps and stops as soon as the output would pass
    ``max_bytes``: a gzip bomb costs at most ``max_bytes`` of memory and the time to inflate it.
    Concatenated gzip members (``cat a.gz b.gz``) are read in turn; a stream cut short yields what
    it holds, with a warning.
    """
    if data[:2] != GZIP_MAGIC:
        if len(data) > max_bytes:
            raise _too_large(max_bytes)
        return data, []
    warnings: list[str] = []
    parts: list[bytes] = []
    size = 0
    view = memoryview(data)
    pos = 0
    while True:
        inflater = zlib.decompressobj(wbits=31)  # 31: gzip header and trailer expected
        while not inflater.eof:
            src: bytes | memoryview
            if inflater.unconsumed_tail:
                src = inflater.unconsumed_tail
            elif pos < len(data):
                src = view[pos : pos + _CHUNK]
                pos += len(src)
            else:
                warnings.append("the gzip data ends early (truncated upload?): read what it holds")
                return b"".join(parts), warnings
            try:
                out = inflater.decompress(src, max_bytes - size + 1)
            except zlib.error as exc:
                raise ProfileError(f"corrupt gzip data: {exc}") from None
            size += len(out)
            if size > max_bytes:
                raise _too_large(max_bytes)
            parts.append(out)
        rest = pos - len(inflater.unused_data) - len(inflater.unconsumed_tail)
        if rest >= len(data):
            break
        if data[rest : rest + 2] != GZIP_MAGIC:
            if data[rest:].strip(b"\x00"):
                warnings.append("bytes after the end of the gzip data ignored")
            break
        pos = rest
    return b"".join(parts), warnings


def decode_text(data: bytes) -> tuple[str, list[str]]:
    """UTF-8 text (a BOM dropped, CRLF kept: parsers strip it); invalid bytes become U+FFFD."""
    data = data.removeprefix(_BOM)
    warnings: list[str] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        line = data.count(b"\n", 0, exc.start) + 1
        warnings.append(f"line {line}: bytes that are not UTF-8, shown as \ufffd")
    if "\x00" in text:
        # A NUL would end the name in C-based tools and sorts below ";" (model.py relies on it).
        text = text.replace("\x00", "\ufffd")
    return text, warnings


# "<svg", "<?xml", "<!DOCTYPE svg", "<!-- ..." start an SVG (and "<html" gets the SVG reader's
# "not an SVG"); a folded stack may start with "<" too (Python's "<module>").
_XML_START = re.compile(rb"\s*<(?:\?xml|svg|!doctype|!--|html)", re.IGNORECASE)


def detect_format(data: bytes) -> str:
    """"svg", "perf-script", "dtrace", "stap" or "folded" (the fallback, whose parser names the
    first line that is not folded)."""
    head = data[:_SNIFF]
    head = head.removeprefix(_BOM)
    if _XML_START.match(head):
        return "svg"
    raw_lines = head.split(b"\n")
    if len(data) > _SNIFF and len(raw_lines) > 1:
        raw_lines.pop()  # cut in the middle
    raw_lines = [ln.rstrip(b"\r") for ln in raw_lines[:400]]
    if looks_like_perf_script(raw_lines):
        return "perf-script"
    lines = [ln.decode("utf-8", "replace") for ln in raw_lines if ln.strip() and ln[:1] != b"#"]
    if lines and DTRACE_HEADER.match(lines[0]):
        return "dtrace"
    if looks_like_stack_blocks(lines):
        return "stap"
    return "folded"
