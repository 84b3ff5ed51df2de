"""Full ``strace -e trace=...`` logs: per syscall, a histogram of return values.

This is what engineers do with ``grep readv log | awk -F' = ' '{print $2}' | sort | uniq -c``,
done right: the return value is the text after the *last* " = " (awk takes the second field, which
is wrong when traced data contains " = "), "<unfinished ...>" lines are counted once, at their
"<... resumed>" line (grep|awk counts them as an empty value), and ``-T`` durations are dropped.

Output schema::

    {"syscalls": {"readv": {"calls": 13730,                    # completed calls (incl. resumed)
                            "returns": {"4096": 10984, "-1 EAGAIN (Resource temporarily unavailable)": 3},
                                                               # return text -> count, most frequent first
                            "errors": {"EAGAIN": 3},           # errno name -> count
                            "sum_returns": 56223744,           # sum of non-negative integer returns
                                                               # (bytes, for read/write-like calls)
                            "unfinished": 0}},                 # started, never resumed in the log
     "signals": {"SIGPIPE": 3}, "exits": {"exited with 0": 1},
     "lines": 34317, "unparsed_lines": 0, "warnings": [...]}

Accepted line shapes: plain, ``PID name(...)`` (-f with -o), ``[pid N] name(...)`` (-f on stderr),
``-t``/``-tt``/``-ttt``/``-r`` time prefixes, ``-i`` instruction pointers, ``-T`` suffixes, ``-y`` fd
paths, and strace's own messages. Speed matters (logs have millions of lines): one C-level substitution per
64 KiB piece drops every call's arguments, a Counter groups the short lines that remain, and only
the distinct groups are interpreted in Python (``group_lines``; ``perflab parse strace`` also runs
it on one forked worker per CPU).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from itertools import compress, repeat
from operator import itemgetter
from typing import Any

from ._common import JSON, ParseError, show, split_lines, to_int

KIND = "strace"

#: per-syscall metric -> unit (``returns`` is a histogram: return text -> calls)
METRICS: dict[str, str] = {
    "calls": "calls",
    "sum_returns": "bytes (read/write-like calls)",
    "unfinished": "calls",
}

_PREFIX_CHARS = frozenset("0123456789:.[]")


def _prefix_ok(tokens: list[str]) -> bool:
    """pid, '[pid N]', timestamps and '[ip]' before the syscall name."""
    for tok in tokens:
        if tok == "[pid":
            continue
        if not tok.isascii():
            return False
        if (
            tok.startswith("[")
            and tok.endswith("]")
            and all(c in "0123456789abcdef" for c in tok[1:-1])
        ):
            continue  # -i instruction pointer
        if not set(tok) <= _PREFIX_CHARS:
            return False
    return True


def _name(tok: str) -> bool:
    return tok.isascii() and tok.isidentifier()


def _strip_duration(ret: str) -> str:
    # -T appends " <0.000012>"; -y returns like "3</dev/null>" have no space before '<'.
    if ret.endswith(">"):
        i = ret.rfind(" <")
        if i >= 0 and ret[i + 2 : -1].replace(".", "", 1).isdigit():
            return ret[:i]
    return ret.rstrip()


def _entry(table: dict[str, JSON], name: str) -> JSON:
    entry = table.get(name)
    if entry is None:
        entry = table[name] = {
            "calls": 0,
            "returns": Counter(),
            "errors": Counter(),
            "sum_returns": 0,
            "unfinished": 0,
            "resumed": 0,
        }
    return entry


def _classify(
    head: str, sep: str, ret: str, line: str | None = None
) -> tuple[str, Any]:
    """('call', (name, ret)) | ('unfinished', name) | ('resumed', (name, ret)) | ('signal', sig) |
    ('exit', text) | ('noise', None) | ('other', None)."""
    tokens = head.split()
    if not tokens:
        return "other", None
    # '<... readv resumed>...' : head runs to the first '(' which may lie inside the data
    if "<..." in head:
        i = head.index("<...")
        rest = head[i + 4 :].split()
        if (
            len(rest) >= 2
            and rest[1].startswith("resumed>")
            and _prefix_ok(head[:i].split())
            and _name(rest[0])
        ):
            if sep:
                return "resumed", (rest[0], _strip_duration(ret))
            return "other", None
    if "---" in tokens or "+++" in tokens:
        full = head if line is None else line
        parts = full.split()
        if "---" in parts and len(parts) > parts.index("---") + 1:
            return "signal", parts[parts.index("---") + 1]
        if "+++" in parts:
            a = parts.index("+++")
            b = len(parts) - 1 - parts[::-1].index("+++")
            return "exit", " ".join(parts[a + 1 : b])
    if tokens[0] == "strace:":
        return "noise", None
    name = tokens[-1]
    if not _name(name) or not _prefix_ok(tokens[:-1]):
        return "other", None
    if sep:
        return "call", (name, _strip_duration(ret))
    if "<unfinished ...>" in ret or (line is not None and "<unfinished ...>" in line):
        return "unfinished", name
    return "other", None


_CHUNK = (
    1 << 16
)  # below malloc's mmap threshold: pieces reuse heap memory instead of faulting in pages
_HEAD = itemgetter(slice(0, 16))
_TAIL = itemgetter(slice(-20, None))
_MISSING: Any = object()

Groups = Counter[tuple[str, tuple[str, str]]]


def _fast_key(head: str, tail: str) -> tuple[str, str] | None:
    """(name, return text) straight from a line's first 16 and last 20 characters, when those
    suffice: the first '(' lies in the head and the last ' = ' in the tail, on a plain call line."""
    h, paren, _ = head.partition("(")
    _, eq, ret = tail.rpartition(" = ")
    if not paren or not eq or "<" in h:
        return None
    kind, value = _classify(h, eq, ret, None)
    if kind != "call":
        return None
    name, rtext = value
    return name, rtext.rstrip("\r")


def _text(part: str | bytes) -> str:
    return part if isinstance(part, str) else part.decode("utf-8", errors="replace")


def chunks(
    text: Any, size: int = _CHUNK, start: int = 0, stop: int | None = None
) -> Iterator[str | bytes]:
    """Newline-aligned pieces of about ``size`` characters (small enough to stay in cache) of a
    str, bytes or mmap, between ``start`` (a line start) and ``stop`` (a line end)."""
    nl: Any = "\n" if isinstance(text, str) else b"\n"
    pos, n = start, len(text) if stop is None else stop
    while pos < n:
        end = text.find(nl, pos + size, n)
        end = n if end < 0 else end + 1
        yield text[pos:end]
        pos = end


# From a line's first '(' up to its last ' = ' ('.' stops at newlines), i.e. exactly the
# arguments. Tied to the newline before the line: unanchored, the engine retried at every '(' of a
# line that has no ' = ' (junk, or an unfinished call's data) and scanned to its end each time,
# quadratic in the line length (4.6 s for 512 KB of "(aaa..."). From its newline each line is
# tried once and backtracks over itself at most once. A literal newline rather than a MULTILINE
# '^': the engine jumps from newline to newline, where '^' made it try every position (2.5x the
# CPU on a real log). group_lines puts a newline before each piece's first line.
_ARGS_STR = re.compile(r"\n([^(\n]*)\(.* = ")
_ARGS_BYTES = re.compile(rb"\n([^(\n]*)\(.* = ")


def group_lines(pieces: Iterable[str | bytes]) -> tuple[Groups, int]:
    """Counts of (text before the first '(', (' = ', text after the last ' = ')) over all lines of
    newline-aligned ``pieces`` (str, or UTF-8 bytes straight from a file), and the line count.

    One C-level substitution per piece cuts every call line down to "name(<NUL>result" (the
    arguments, which make lines unique, are dropped), so a Counter over the short lines has a
    few distinct keys; only those are looked at in Python. Lines the pattern leaves alone (no '('
    or no ' = ' after it: signals, exits, unfinished calls, stray output) are split exactly, per
    distinct line. Same result as splitting every line, about twice as fast.
    """
    groups: Groups = Counter()
    nlines = 0
    for piece in pieces:
        text = isinstance(piece, str)
        nul: Any = "\x00" if text else b"\x00"
        newline: Any = "\n" if text else b"\n"
        # Pieces holding the NUL separator the substitution relies on take the sliced path.
        if nul in piece:
            g, n = _group_sliced([piece])
            groups.update(g)
            nlines += n
            continue
        pattern: Any = _ARGS_STR if text else _ARGS_BYTES
        reduced: Any = pattern.sub(
            "\n\\1(\x00" if text else b"\n\\1(\x00", newline + piece
        ).split(newline)
        del reduced[0]  # the empty text before the newline put in front
        if reduced and not reduced[-1]:
            reduced.pop()
        nlines += len(reduced)
        for key, count in Counter(reduced).items():
            line = _text(key)
            head, cut, ret = line.partition("(\x00")
            if cut:
                groups[(head, (" = ", ret.rstrip("\r")))] += count
            else:
                line = line.rstrip("\r")
                _, sep, tail = line.rpartition(" = ")
                groups[(line.partition("(")[0], (sep, tail))] += count
    return groups, nlines


def _group_sliced(pieces: Iterable[str | bytes]) -> tuple[Groups, int]:
    """``group_lines`` without the regular expression, for pieces that contain NUL (the separator
    the fast path relies on). Most lines are grouped by their first 16 and last 20 characters;
    lines whose short key is not enough are split exactly."""
    groups: Groups = Counter()
    known: dict[Any, tuple[str, str] | None] = {}
    nlines = 0
    for piece in pieces:
        lines: list[Any] = piece.split("\n" if isinstance(piece, str) else b"\n")  # type: ignore[arg-type]
        if lines and not lines[-1]:
            lines.pop()
        nlines += len(lines)
        keys = list(zip(map(_HEAD, lines), map(_TAIL, lines)))
        slow = False
        for key, count in Counter(keys).items():
            fast = known.get(key, _MISSING)
            if fast is _MISSING:
                fast = known[key] = _fast_key(_text(key[0]), _text(key[1]))
            if fast is None:
                slow = True
            else:
                groups[(fast[0], (" = ", fast[1]))] += count
        if slow:
            bad = {k for k, v in known.items() if v is None}
            rest = [
                _text(ln).rstrip("\r")
                for ln in compress(lines, map(bad.__contains__, keys))
            ]
            heads = map(itemgetter(0), map(str.partition, rest, repeat("(")))
            tails = map(itemgetter(1, 2), map(str.rpartition, rest, repeat(" = ")))
            groups.update(zip(heads, tails))
    return groups, nlines


def parse(text: str) -> JSON:
    groups, nlines = group_lines(chunks(text))
    return summarize(groups, nlines, lambda: split_lines(text))


def _by_count_then_value(item: tuple[str, int]) -> tuple[int, int, int, str]:
    """Most frequent first; ties in numeric order, like `sort | uniq -c | sort -rn`."""
    text, count = item
    number = to_int(text.partition(" ")[0])
    return (-count, 0 if number is not None else 1, number or 0, text)


def summarize(groups: Groups, nlines: int, get_lines: Callable[[], list[str]]) -> JSON:
    """The result document from grouped line counts (``group_lines`` of one text, or the sum of
    those of consecutive pieces of it); ``get_lines`` is only called to name a bad line."""

    table: dict[str, JSON] = {}
    signals: Counter[str] = Counter()
    exits: Counter[str] = Counter()
    other_keys: set[tuple[str, tuple[str, str]]] = set()
    blank = 0
    noise: str | None = None

    def line_of(key: tuple[str, tuple[str, str]]) -> str:
        h, (sp, r) = key
        return r if not sp else h + "(..." + sp + r

    for key, count in groups.items():
        head, (sep, ret) = key
        # without ' = ', rpartition left the whole line in ret
        line: str | None = None if sep else ret
        kind, value = _classify(head, sep, ret, line)
        if kind == "call" or kind == "resumed":
            name, rtext = value
            entry = _entry(table, name)
            entry["calls"] += count
            if kind == "resumed":
                entry["resumed"] += count
            entry["returns"][rtext] += count
            first, _, rest = rtext.partition(" ")
            number = to_int(first) if first.isdigit() else None
            if number is not None:
                entry["sum_returns"] += number * count
            elif (first == "-1" or first == "?") and rest.startswith("E"):
                entry["errors"][rest.split()[0]] += count
        elif kind == "unfinished":
            _entry(table, value)["unfinished"] += count
        elif kind == "signal":
            signals[value] += count
        elif kind == "exit":
            exits[value] += count
        elif kind == "noise":
            if noise is None or noise > line_of(key):
                noise = line_of(key)
        elif not sep and not ret.strip():
            blank += count
        else:
            other_keys.add(key)

    warnings: list[str] = []
    unparsed = sum(groups[k] for k in other_keys)
    first_other: tuple[int, str] | None = None
    if other_keys:
        for n, ln in enumerate(get_lines(), 1):
            h, _, _ = ln.partition("(")
            _, s, r = ln.rpartition(" = ")
            if (h, (s, r)) in other_keys:
                first_other = (n, ln)
                break
    if not table:
        if first_other is not None:
            n, ln = first_other
            raise ParseError(
                f"expected strace lines ('name(args) = result'), got {show(ln)}", n
            )
        if not signals and not exits:
            if noise is not None:
                raise ParseError(f"strace traced nothing; it said: {noise}", None)
            raise ParseError("no strace log: the input is empty", None)
    if first_other is not None:
        n, ln = first_other
        warnings.append(
            f"line {n}: {unparsed} line(s) are not strace lines and were ignored; first: {show(ln)}"
        )

    syscalls: dict[str, JSON] = {}
    for name in sorted(table, key=lambda s: (-table[s]["calls"], s)):
        e = table[name]
        pending = e["unfinished"] - e["resumed"]
        syscalls[name] = {
            "calls": e["calls"],
            "returns": dict(sorted(e["returns"].items(), key=_by_count_then_value)),
            "errors": dict(sorted(e["errors"].items(), key=lambda kv: (-kv[1], kv[0]))),
            "sum_returns": e["sum_returns"],
            "unfinished": max(pending, 0),
        }
        if pending > 0:
            warnings.append(
                f"{name}: {pending} call(s) unfinished at the end of the log (not counted)"
            )
    return {
        "syscalls": syscalls,
        "signals": dict(signals.most_common()),
        "exits": dict(exits.most_common()),
        "lines": nlines - blank,
        "unparsed_lines": unparsed,
        "warnings": warnings,
    }


def sniff(lines: list[str]) -> float:
    calls = other = 0
    for line in lines[:200]:
        if not line.strip():
            continue
        head, _, _ = line.partition("(")
        _, sep, ret = line.rpartition(" = ")
        kind, _ = _classify(head, sep, ret, None if sep else line)
        if kind in ("call", "resumed", "unfinished"):
            calls += 1
        elif kind == "other":
            other += 1
    if calls >= 1 and calls >= 2 * other:
        return 0.8
    return 0.0
