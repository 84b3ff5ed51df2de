"""Bytes to text for files and uploads: gzip, encodings, and refusing binary data clearly."""

from __future__ import annotations

import zlib

from ._common import ParseError, check_text

#: a decompressed paste larger than this is not a tool output anyone pasted (a gzip bomb)
MAX_TEXT_BYTES = 2 * 1024**3


def read_text(data: bytes) -> str:
    if data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip(data)
        except (OSError, EOFError, zlib.error) as e:
            raise ParseError(f"corrupt gzip data ({e})", None) from None
    if b"\x00" in data[:65536]:
        raise ParseError(
            "binary data, not text (NUL bytes); is this the right file?", 1
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Old captures in a legacy 8-bit locale: keep the ASCII numbers, mark the rest.
        text = data.decode("utf-8", errors="replace")
    text = text.removeprefix("\ufeff")
    check_text(text)
    return text


def _gunzip(data: bytes) -> bytes:
    out = bytearray()
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    view = memoryview(data)
    step = 1 << 20
    for i in range(0, len(view), step):
        out += d.decompress(view[i : i + step], MAX_TEXT_BYTES + 1 - len(out))
        if len(out) > MAX_TEXT_BYTES or d.unconsumed_tail:
            raise ParseError("gzip data expands beyond 2 GiB; refusing it", None)
        if d.eof:
            break
    out += d.flush()
    if not d.eof:
        raise ParseError("gzip data is cut off", None)
    return bytes(out)
