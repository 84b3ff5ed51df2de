"""``perf script`` text folded into stacks, exactly as FlameGraph's stackcollapse-perf.pl does.

Input: what ``perf record -g ...; perf script`` prints, one sample per block::

    nginx   821  1625.581243:    2004008 cpu-clock:pppH:       <- header: comm, tid, time, period, event
    	ffffffff813a2413 finish_task_switch.isra.0+0x93 ([kernel.kallsyms])   <- leaf first
    	           fde60 __GI___writev+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)
    	    557b1996fbd0 [unknown] ([unknown])
    <blank line>

Output: ``nginx;[unknown];__GI___writev;...;finish_task_switch.isra.0`` with a count, the same
stack strings as stackcollapse-perf.pl with its default options: process name first (no pid/tid),
``+0x..`` offsets stripped, ``[unknown]`` replaced by ``[module]`` when perf knows the module,
arguments after ``(`` dropped (not Go's ``pkg.(*T).M``), ``;`` turned into ``:``, quotes
removed, ``Ljava/..`` tidied for java processes, inlined frames (``a->b``) split with ``_[i]``,
no ``_[k]``/``_[j]`` annotations, only the first event type kept, and a last sample without the
blank line after it ignored. It is a port of that script's rules, byte-regex for byte-regex
(Perl's ``\\s``, ``\\w`` and ``\\d`` on a byte string are ASCII, like Python's bytes patterns);
it never runs a program. Two deliberate differences: CRLF line ends are read as LF (the Perl
script sees ``\\r`` and merges every sample), and a period of 19 digits or more is refused rather
than summed in floating point.

Counts (``unit``):

- stackcollapse-perf.pl adds up the *period* perf prints before the event name. For ``cpu-clock``
  and ``task-clock`` that period is nanoseconds of CPU time, so the default (``unit=None``) is
  ``"nanoseconds"`` summing periods for those events: exactly the script's output.
- For any other event (``cycles``, ``instructions``, tracepoints) the period is a count of events,
  not time; the default is ``"samples"``, one per sample.
- ``unit="samples"`` always counts samples; any other unit ("nanoseconds", "cycles", "events")
  sums periods (a sample whose header has no period counts 1, as in the script).

Speed: samples repeat. A sample's stack (everything after its header line) is looked up in a
cache before any line is parsed, and single frame lines have their own cache, so most input is
only hashed. A block that does not have the plain shape (header, then indented frame lines) goes
through a line-by-line port of the script's loop instead.
"""

from __future__ import annotations

import re
from itertools import chain
from typing import cast

from .model import Profile, ProfileError

FORMAT = "perf-script"

# The Perl script's regexes, rewritten to match in linear time with the same results. Python's
# engine has no guard against backtracking blow-ups, and these run on uploads: the verbatim
# /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/ takes minutes on one line of 30 digits, and
# /^\s*(\w+)\s*(.+) \((.*)\)/ is quadratic in the length of a line.
#
# Header: /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/ -> only $1 (the process name) is used. The tail
# matches exactly the texts of \s+\d+(?:/+\d*)?\s (digits, maybe slashes and digits, a blank),
# and the shortest name is either 2 characters ending in a blank, or ends in a non-blank right
# before a blank run (a later start in the same run would have matched earlier), so each run of
# blanks is scanned once.
_HEADER = re.compile(rb"(\S(?:\s|.+?(?<!\s)))\s++\d++(?:/++\d*+)?\s")
# Event: /:\s*(\d+)*\s+(\S+):\s*$/ -> (period, event). Perl first tries the digit run right
# after the colon's blanks (followed by blanks), then no digits (the blanks then are the \s+).
_EVENT = re.compile(rb":\s*+(?:(\d++)\s++|(?<=\s))(\S+):\s*+$")
_OFFSET = re.compile(rb"\+0x[\da-f]+$")
_ARGS = re.compile(rb"\((?!anonymous namespace\)).*")
_WORD = re.compile(rb"\w+")
_FLUSH_FRAME = re.compile(rb"[0-9a-f]+ \S")  # an unindented frame line: address, blank, symbol
_ASCII_BLANKS = b" \t\n\r\x0b\x0c"  # Perl's \s on a byte string, and bytes.strip()'s default


def _frame_match(line: bytes) -> tuple[bytes, bytes] | None:
    r"""(rawfunc, mod) as /^\s*(\w+)\s*(.+) \((.*)\)/ captures them, in linear time.

    The greedy (.+) ends at the last " (" that still has a ")" after it, and (.*) runs to the last
    ")". (.+) starts after the address and its blanks, or earlier (giving back blanks, then
    address characters) when it would otherwise be empty.
    """
    start = len(line) - len(line.lstrip(_ASCII_BLANKS))
    word = _WORD.match(line, start)
    if word is None:
        return None
    close = line.rfind(b")")
    if close < 0:
        return None
    paren = line.rfind(b" (", 0, close)
    if paren < start + 2:  # (\w+) and (.+) need a character each
        return None
    gap = line[word.end() : paren]
    after_blanks = paren - len(gap.lstrip(_ASCII_BLANKS))
    rawfunc_start = min(after_blanks, paren - 1)
    return line[rawfunc_start:paren], line[paren + 2 : close]


def _is_go_method(func: bytes) -> bool:
    r"""/\.\(.*\)\./: a ".(" with a ")." after it (Go's pkg.(*T).Method)."""
    dot = func.find(b".(")
    return dot >= 0 and func.find(b").", dot + 2) >= 0


_CLOCK_EVENTS = frozenset({"cpu-clock", "task-clock"})
_WHITESPACE = frozenset(b" \t\r\x0b\x0c")  # Perl's \s minus \n: a line starting so is no header
_MAX_PERIOD_DIGITS = 18  # Perl would switch to floating point; we refuse instead
_MAX_EXAMPLES = 3
_CACHE_LIMIT = 200_000  # entries per cache; cleared when full so memory stays bounded

# Line cache value of a line the script would warn about. A tuple, so cache values have one
# type, compared by identity only (frames cannot be empty bytes: a frame line gives >= 1 char).
_UNRECOGNIZED: tuple[bytes, ...] = (b"",)


def looks_like_perf_script(lines: list[bytes]) -> bool:
    """A header line directly followed by a frame line, within the first lines.

    Frame lines are indented by most perf versions; some (and Java agents' output) print them
    flush left, which the script reads the same way. An unindented one must look like perf's
    (a hex address, a blank, a symbol, `` (module)``) under a header ending in its event name
    and a colon, so folded stacks with ``(file:line)`` frames are not taken for it.
    """
    for i, line in enumerate(lines[:-1]):
        nxt = lines[i + 1]
        if line[:1] in (b"#", b"") or not _HEADER.match(line) or not _frame_match(nxt):
            continue
        if nxt[:1] in (b" ", b"\t") or (_FLUSH_FRAME.match(nxt) and line.rstrip().endswith(b":")):
            return True
    return False


def _perl_split_inline(rawfunc: bytes) -> list[bytes]:
    """``split /\\->/, $rawfunc``: Perl drops trailing empty fields (and "" gives nothing)."""
    parts = rawfunc.split(b"->")
    while parts and not parts[-1]:
        parts.pop()
    return parts


def _frame_funcs(line: bytes, java: bool) -> tuple[bytes, ...]:
    """The frames one stack line adds (outermost first), or _UNRECOGNIZED."""
    m = _frame_match(line)
    if m is None:
        return _UNRECOGNIZED
    rawfunc, mod = m
    rawfunc = _OFFSET.sub(b"", rawfunc, count=1)
    if rawfunc[:1] == b"(":  # "next if $rawfunc =~ /^\(/": a process name, skipped
        return ()
    out: list[bytes] = []
    for func in _perl_split_inline(rawfunc):
        if func == b"[unknown]":
            if mod != b"[unknown]":
                func = b"[" + mod.rpartition(b"/")[2] + b"]"  # s/.*\/// keeps the basename
            else:
                func = b"[unknown]"
        if b";" in func:
            func = func.replace(b";", b":")
        if b"(" in func and not _is_go_method(func):
            func = _ARGS.sub(b"", func, count=1)
        if b'"' in func or b"'" in func:
            func = func.replace(b'"', b"").replace(b"'", b"")
        if java and func[:1] == b"L" and b"/" in func:
            func = func[1:]
        if out and b"_[i]" not in func:  # every part after the first was inlined
            func += b"_[i]"
        out.append(func)
    return tuple(out)


class _Folder:
    """State shared by the fast loop and the line-by-line port: caches, event filter, counts.

    Counts are keyed by ``(pname, frames)``: ``frames`` comes from the body cache, so its hash is
    already known and no stack string is built per sample.
    """

    def __init__(self, data: bytes, unit: str | None) -> None:
        self.data = data
        self.unit = unit  # None until decided (auto mode decides at the first counted sample)
        self.use_period = unit is not None and unit != "samples"
        self.collapsed: dict[tuple[bytes, bytes], int] = {}
        self.event_filter: bytes | None = None
        self.filtered = 0
        self.other_events: set[bytes] = set()
        self.no_period = 0  # samples counted 1 in period mode because perf printed no period
        self.unrecognized = 0
        self.examples: list[str] = []
        self.warnings: list[str] = []
        self.line_cache: tuple[dict[bytes, tuple[bytes, ...]], ...] = ({}, {})
        # body -> its frames joined by ";" (outermost first); bodies with an unrecognized line
        # are not cached, so the fast loop never has to report anything.
        self.body_cache: tuple[dict[bytes, bytes], ...] = ({}, {})

    def line_no(self, offset: int) -> int:
        return self.data.count(b"\n", 0, offset) + 1

    def note_unrecognized(self, offset: int, line: bytes) -> None:
        self.unrecognized += 1
        if len(self.examples) < _MAX_EXAMPLES:
            shown = line.decode("utf-8", "replace").strip()
            self.examples.append(f"line {self.line_no(offset)}: {shown[:60]!r}")

    def event(self, period_s: bytes | None, event: bytes) -> bool:
        """Apply the event filter; False when the sample is of another event type."""
        if self.event_filter is None:
            # Like the script: only the first event type is kept; mixing cycles and
            # instructions in one graph would be misleading.
            self.event_filter = event
        elif event != self.event_filter:
            self.filtered += 1
            self.other_events.add(event)
            return False
        if self.unit is None:
            base = event.split(b":")[0].decode("ascii", "replace")
            if base in _CLOCK_EVENTS and period_s is not None:
                self.unit, self.use_period = "nanoseconds", True
            else:
                self.unit, self.use_period = "samples", False
        return True

    def count(self, period_s: bytes | None, offset: int) -> int:
        if not self.use_period:
            return 1
        # "if (not $period) { $period = 1 }": missing or "0" counts 1; "00" is true in Perl and
        # adds 0.
        if period_s is None or period_s == b"0":
            self.no_period += period_s is None
            return 1
        if len(period_s) > _MAX_PERIOD_DIGITS:
            raise ProfileError(f"period {period_s[:30].decode()}... is too large", self.line_no(offset))
        return int(period_s)

    def header(self, line: bytes, offset: int) -> tuple[bytes, int] | bool:
        """(pname, count) when the line starts a counted sample, False when the sample is
        filtered out (another event type), True when the line is no header at all."""
        m = _HEADER.match(line)
        if m is None:
            return True
        ev = _EVENT.search(line)
        period_s = None
        if ev is not None:
            period_s = ev.group(1)
            if not self.event(period_s, ev.group(2)):
                return False
        elif self.unit is None:
            self.unit, self.use_period = "samples", False
        return m.group(1).replace(b" ", b"_"), self.count(period_s, offset)

    def remember(self, pname: bytes, frames: bytes, count: int) -> None:
        key = (pname, frames)
        self.collapsed[key] = self.collapsed.get(key, 0) + count

    def slow_block(self, block: bytes, offset: int, terminated: bool) -> None:
        """The script's loop, line by line, over one block (the lines between blank lines)."""
        pname: bytes | None = None
        count = 1
        # Frame tuples leaf first, reversed once at the end: prepending each would be quadratic
        # in the depth.
        stack: list[tuple[bytes, ...]] = []
        pos = offset
        for line in block.split(b"\n"):
            start = pos
            pos += len(line) + 1
            if line[:1] == b"#" or not line:  # "" only ends an unterminated tail
                continue
            h = self.header(line, start)
            if h is not True:
                if h is not False:
                    pname, count = h
                continue
            funcs = _frame_funcs(line, pname is not None and pname.startswith(b"java"))
            if funcs is _UNRECOGNIZED:
                self.note_unrecognized(start, line)
                continue
            if pname is None:  # "next if not $pname": stack lines of a filtered sample
                continue
            stack.append(funcs)
        if pname is not None:
            if terminated:
                stack.reverse()
                self.remember(pname, b";".join(chain.from_iterable(stack)), count)
            else:
                self.warnings.append(
                    f"line {self.line_no(offset)}: the last sample is not followed by a blank "
                    "line; ignored, as stackcollapse-perf.pl does"
                )

    def fold_body(self, body: bytes, java: bool) -> bytes | None:
        """A sample's stack lines as frames joined by ";", outermost first; None when a line is
        not an indented frame line (then the block needs the port). Cache lookups are mapped
        over the lines in one C-level call; only new lines are parsed."""
        cache = self.line_cache[java]
        lines = body.split(b"\n")
        found = list(map(cache.get, lines))
        misses = found.count(None)
        if misses:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            i = -1
            for _ in range(misses):
                i = found.index(None, i + 1)
                line = lines[i]
                if not line or line[0] not in _WHITESPACE:
                    return None
                found[i] = cache[line] = _frame_funcs(line, java)
        if _UNRECOGNIZED in found:  # by equality: a (b"",) frame tuple just takes the port
            return None
        found.reverse()
        # No None is left: every miss was filled in above.
        return b";".join(chain.from_iterable(cast(list[tuple[bytes, ...]], found)))

    def blocks(self, blocks: list[bytes], offset: int) -> None:
        """Fold complete blocks (each followed by a blank line) starting at ``offset``.

        The loop handles the plain shape inline: a header line whose event passes the filter,
        then frame lines seen before. Anything else goes through the methods above.
        """
        hdr_match, evt_search = _HEADER.match, _EVENT.search
        caches = self.body_cache
        collapsed = self.collapsed
        get = collapsed.get
        # The event filter and the counting mode, as locals; None until the first sample
        # decided them (then every block takes the methods until it is set).
        event_filter = self.event_filter if self.unit is not None else None
        use_period = self.use_period
        for block in blocks:
            start = offset
            offset += len(block) + 2
            header, sep, body = block.partition(b"\n")
            m = hdr_match(header)
            if m is None or header[0] == 35:  # no header, or a "#" comment
                if block:
                    if block[0] == 10:  # "\n\n\n": an extra blank line first
                        block = block.lstrip(b"\n")
                        start = offset - 2 - len(block)
                    if block:
                        self.slow_block(block, start, True)
                event_filter = self.event_filter if self.unit is not None else None
                use_period = self.use_period
                continue
            ev = evt_search(header)
            if ev is None or (groups := ev.groups())[1] != event_filter:
                h = self.header(header, start)
                event_filter = self.event_filter if self.unit is not None else None
                use_period = self.use_period
                if h is False:
                    # Filtered: pname stays unset, the script skips its frame lines; only a
                    # line that is not a frame line could change anything.
                    if body and any(ln[:1] not in (b" ", b"\t") for ln in body.split(b"\n")):
                        self.slow_block(body, start + len(header) + 1, True)
                    continue
                if h is True:  # unreachable: the header regex matched above
                    self.slow_block(block, start, True)
                    continue
                pname, count = h
            else:
                period_s = groups[0]
                if not use_period:
                    count = 1
                elif period_s is None or period_s == b"0" or len(period_s) > _MAX_PERIOD_DIGITS:
                    count = self.count(period_s, start)
                else:
                    count = int(period_s)
                pname = m.group(1)
                if b" " in pname:
                    pname = pname.replace(b" ", b"_")
            if not sep:  # a header alone
                self.remember(pname, b"", count)
                continue
            java = pname[:4] == b"java"
            frames = caches[java].get(body)
            if frames is None:
                frames = self.fold_body(body, java)
                if frames is None:
                    # Unrecognized or unindented lines: the port handles (and reports) them.
                    # header() already applied the event filter; the port sees the same event.
                    self.slow_block(block, start, True)
                    continue
                cache = caches[java]
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                cache[body] = frames
            key = (pname, frames)
            collapsed[key] = get(key, 0) + count


def fold_perf_script(data: bytes, *, unit: str | None = None, name: str = "") -> Profile:
    """Fold ``perf script`` output (bytes, not compressed); see the module docstring."""
    if b"\r" in data:  # one byte: memchr, far quicker than searching for b"\r\n"
        data = data.replace(b"\r\n", b"\n")
    folder = _Folder(data, unit)
    window = 4 << 20  # split a few MB at a time: the list of blocks stays small
    pos = 0
    n = len(data)
    while pos < n:
        end = data.find(b"\n\n", min(pos + window, n))
        if end < 0:
            # The tail after the last blank line: no blank line follows it, so the script never
            # remembers its last sample (but its header still counts for the event filter).
            blocks = data[pos:].split(b"\n\n")
            tail = blocks.pop()
            folder.blocks(blocks, pos)
            tail_at = n - len(tail)
            stripped = tail.lstrip(b"\n")
            if stripped:
                folder.slow_block(stripped, tail_at + len(tail) - len(stripped), False)
            break
        folder.blocks(data[pos:end].split(b"\n\n"), pos)
        pos = end + 2
    return _finish(folder, name)


def _finish(folder: _Folder, name: str) -> Profile:
    if not folder.collapsed:
        raise ProfileError(
            "perf script output with no complete sample (a header line, stack lines, a blank line)"
        )
    warnings = list(folder.warnings)
    if folder.filtered:
        others = ", ".join(sorted(e.decode("utf-8", "replace") for e in folder.other_events))
        event = (folder.event_filter or b"").decode("utf-8", "replace")
        warnings.append(
            f"{folder.filtered} samples of other events ({others}) left out: only the first "
            f"event type, {event}, is kept"
        )
    if folder.unrecognized:
        warnings.append(
            f"{folder.unrecognized} unrecognized lines ignored (" + "; ".join(folder.examples) + ")"
        )
    if folder.no_period:
        warnings.append(
            f"{folder.no_period} samples have no period in their header: each counts 1"
        )
    stacks: dict[str, int] = {}
    bad = 0
    for (pname, frames), count in folder.collapsed.items():
        raw = pname + b";" + frames if frames else pname
        try:
            key = raw.decode("utf-8")
        except UnicodeDecodeError:
            bad += 1
            key = raw.decode("utf-8", "replace")
        if "\x00" in key:
            key = key.replace("\x00", "\ufffd")
        stacks[key] = stacks.get(key, 0) + count
    if bad:
        warnings.append(f"{bad} stacks had bytes that are not UTF-8; shown as \ufffd")
    event_name = folder.event_filter.decode("utf-8", "replace") if folder.event_filter else None
    return Profile(
        stacks=stacks,
        unit=folder.unit or "samples",
        event=event_name,
        format=FORMAT,
        warnings=warnings,
        name=name,
    )
