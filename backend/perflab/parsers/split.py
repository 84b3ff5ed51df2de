"""One paste or file holding several tools' outputs, split into one part per output.

    from perflab.parsers.split import split

    split(text)   # -> [{"kind", "start_line", "end_line", "text", "preview", "warnings"}, ...]
                  #    transcript parts also: "command", "prompt", "options", "interval_s"

Engineers paste what their terminal shows: wrk's summary, then the ``strace -c`` table they ran
beside it, maybe a ``$ command`` line in between. Detecting the whole text as one kind keeps one
tool and silently loses the others, so the text is cut where a tool's output visibly begins (wrk's
``Running ... test @``, the ``strace -c`` header, vmstat's ``procs`` header, sysstat's ``Linux ...``
banner, ``Performance counter stats for``, ``ss -s``'s ``Total:``, ``netstat -s``'s ``Ip:``, a
netqtop header), and blank-line separated blocks inside a piece are told apart with the same
detectors ``detect`` uses. Every line ends up in exactly one part, in order:

- ``kind``: the parser kind of the part, or None when no detector recognised it (such parts are
  reported with a warning, never dropped);
- ``start_line``, ``end_line``: 1-based, inclusive, in the original text;
- ``text``: the part's lines; ``preview``: its first non-blank lines (at most 3);
- ``warnings``: what the split itself has to say (the parsers add their own when parsing).

Text with a single tool's output comes back as one part spanning every line, so it parses exactly
as before.

**Terminal transcripts.** When lines are shell prompts with a command (``$ vmstat 5``,
``root@host:~# ss -tan``, ``[root@h ~]# pidstat 1``, ``sh-4.2# cat .../cpuset.cpus``, ``bash-5.1$``,
``user@host ~ %``, see ``transcript.prompt``), the text is split at them instead: what precedes the
first prompt is split as above, then each prompt line and the output under it is one part whose kind
the command picks (``transcript.command_kind``: vmstat, pidstat, ss -s/-ltn/-tan, sysctl, netstat -s,
nstat, strace/-c, perf stat, top, tsar, dmesg, wrk, k6, vegeta report, hey, ab, netqtop, ``cat`` of
an access log; ``nproc``, ``getconf _NPROCESSORS_*``, ``lscpu``, ``cat`` of /proc/cpuinfo, /proc/meminfo,
/proc/sys/* and cgroup files -> ``host-facts``). A command perflab has no parser for (``ip route``,
``ethtool -l``, ``uname``) gives a part of kind None with its command; a ``cat`` of a saved file is
split by the detectors. Such parts carry, beside the fields above:

- ``command``: the command as typed (``"vmstat -S M 5"``); ``prompt``: the prompt (``"root@vm:~#"``);
- ``options``: keyword options for ``parse`` the command implies (``{"memory_unit": "M"}``);
- ``interval_s``: the sampling interval the command asked for (``vmstat 5``, ``pidstat 1``,
  ``top -d 2``, ``tsar -i 1``), or null.

The output under a prompt is split as a paste is: when other tools' outputs were pasted below it
without prompts of their own (or a ``cat`` of a saved file holds several), those are parts of their
own, detected, without command fields; the first piece takes the command's kind.

A transcript part's ``text`` begins with its prompt line (``start_line`` is that line), so line
numbers stay the file's; ``parse`` blanks a leading prompt line for the kinds that do not read it
(vmstat reads its ``-S`` unit there, netqtop its ``-n``/``-i``, host-facts which file was shown).
An output that is only a shell complaint (``command not found``, ``No such file or directory``) and a
command that printed nothing are parts of kind None with a warning saying so. Terminal color codes
(``script`` typescripts, colored pastes) are dropped first. Time is linear in the text: one pass over the lines, and each detector sees a bounded
head of each piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from . import detect, module
from ._common import JSON, split_lines
from .transcript import command_kind, prompt

__all__ = ["one_output", "split"]

_WRK_START = re.compile(r"^\s*Running \S+ test @ ")
_SYSSTAT_BANNER = re.compile(r"^Linux \S+ \([^)]*\)\s")
_SS_TOTAL = re.compile(r"^Total: \d+")
_NETSTAT_IP = re.compile(r"^Ip:\s*$")
# One C-level test per line: only lines it matches can start an output (the checks below are exact).
# The words that can start a tool's output, and those that do so only at a line's start. _MARKERS finds the
# lines holding one by substring search (_candidate_lines); _CANDIDATE checks such a line exactly.
_MARKERS = ("Running", "syscall", "procs", "Linux ", "Performance counter stats for", "Total:", "Ip:", "QueueID",
            "Grafana", "TOTAL RESULTS", "Summary:", "This is ApacheBench", "Requests ")
_AT_LINE_START = frozenset({"procs", "Linux ", "Total:", "Ip:", "Summary:", "This is ApacheBench", "Requests "})
_CANDIDATE = re.compile("|".join(("^" if m in _AT_LINE_START else "") + re.escape(m) for m in _MARKERS))
# Terminal color and cursor sequences (CSI): a parameter class then one final letter, no backtracking
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# First characters of a line that can be a prompt (cheap test before the real one)
_PROMPT_STARTS = frozenset("$#%([")
_VEGETA_START = re.compile(r"^Requests +\[total")

# Above this many blank-line separated blocks, a piece is one tool's long capture (pidstat prints a
# block per second): it is not examined block by block.
_MAX_BLOCKS = 64
# Kinds whose outputs are one result each: two in a row are two parts. The others are tables
# (repeated headers, intervals) whose pieces belong together.
_ONE_RESULT = frozenset({"wrk", "perf-stat", "ss-s", "vegeta", "hey", "ab"})
# Load generators whose one result spans blank-line separated sections (k6's HTTP/EXECUTION/NETWORK,
# hey's Summary/Latency distribution/...): from their start line on, the segment is theirs whole when
# it reads as their output, since a section alone can look like another tool's ("name....: value").
_WHOLE = frozenset({"k6", "hey", "ab"})
# Lines a tool prints indented that still start its output.
_INDENTED_STARTS = ("Running", "Performance", "Grafana", "TOTAL RESULTS")


def _sniffs(kind: str) -> Callable[[list[str]], float]:
    sniff: Callable[[list[str]], float] = module(kind).sniff
    return sniff


def _start_kind(line: str) -> str | None:
    """The kind whose output visibly begins on this line, or None (cheap tests first)."""
    if "Running" in line and _WRK_START.match(line):
        return "wrk"
    if "syscall" in line and "calls" in line and _sniffs("strace-c")([line]) >= 1.0:
        return "strace-c"
    if line.startswith("procs") and _sniffs("vmstat")([line]) >= 1.0:
        return "vmstat"
    if line.startswith("Linux ") and _SYSSTAT_BANNER.match(line):
        return "pidstat"
    if "Performance counter stats for" in line:
        return "perf-stat"
    if line.startswith("Total:") and _SS_TOTAL.match(line):
        return "ss-s"
    if line.startswith("Ip:") and _NETSTAT_IP.match(line):
        return "netstat-s"
    if "QueueID" in line and _sniffs("netqtop")([line]) >= 1.0:
        return "netqtop"
    if ("Grafana" in line and "/" in line) or "TOTAL RESULTS" in line:
        return "k6"
    if line == "Summary:":
        return "hey"
    if line.startswith("This is ApacheBench"):
        return "ab"
    if line.startswith("Requests ") and _VEGETA_START.match(line):
        return "vegeta"
    return None


def _blocks(lines: list[str], lo: int, hi: int) -> list[tuple[int, int]]:
    """[start, end) ranges of the non-blank runs within lines[lo:hi]."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i in range(lo, hi):
        line = lines[i]
        if line and not line.isspace():
            if start is None:
                start = i
        elif start is not None:
            out.append((start, i))
            start = None
    if start is not None:
        out.append((start, hi))
    return out


def _kind(lines: list[str], lo: int, hi: int) -> str | None:
    # detect() reads a bounded head; handing it a bounded slice keeps this linear.
    return detect("\n".join(lines[lo : min(hi, lo + 400)]))


def _pieces(lines: list[str], lo: int, hi: int, marked: bool) -> list[tuple[str | None, int, int]]:
    """(kind, start, end) within one segment: blocks of different tools told apart. ``marked``:
    the segment begins with a tool's start line, so blocks before its first recognised one
    (sysstat's banner) belong to that output."""
    blocks = _blocks(lines, lo, hi)
    if not blocks:
        return []
    start = _start_kind(lines[lo]) if marked else None
    if start in _WHOLE and _kind(lines, lo, hi) == start:
        return [(start, blocks[0][0], blocks[-1][1])]
    if len(blocks) == 1 or len(blocks) > _MAX_BLOCKS:
        return [(_kind(lines, blocks[0][0], hi), blocks[0][0], blocks[-1][1])]
    kinds = [_kind(lines, a, b) for a, b in blocks]
    if marked and kinds[0] is None:
        first = next((k for k in kinds if k is not None), None)
        lead = 0
        while lead < len(kinds) and kinds[lead] is None:
            kinds[lead] = first
            lead += 1
    groups: list[tuple[str | None, list[int]]] = []
    for i, k in enumerate(kinds):
        last = groups[-1][0] if groups else "-"
        if groups and (k == last or (k is None and last is not None)):
            groups[-1][1].append(i)
        else:
            groups.append((k, [i]))
    out: list[tuple[str | None, int, int]] = []
    for k, members in groups:
        # Unrecognised blocks after a tool's output are reported, unless that tool's parser reads
        # them (perf stat's counters follow its banner in a block no detector knows alone).
        known = [i for i in members if kinds[i] is not None]
        cut = known[-1] + 1 if known else members[0]
        if known and cut <= members[-1] and _reads(k, lines, blocks[members[0]][0],
                                                   blocks[cut - 1][1], blocks[members[-1]][1]):
            cut = members[-1] + 1
        if known:
            out.append((k, blocks[members[0]][0], blocks[cut - 1][1]))
        if cut <= members[-1]:
            out.append((None, blocks[cut][0], blocks[members[-1]][1]))
    return out


def _reads(kind: str | None, lines: list[str], lo: int, mid: int, hi: int) -> bool:
    """Whether the parser of ``kind`` takes lines[mid:hi] as more of the output in lines[lo:mid]:
    it still parses, warns no more, and the result changes."""
    if kind is None or kind == "wrk":
        # wrk keeps lines after its summary as a Lua script's output, but a script prints right
        # after it: text past a blank line is someone else's.
        return False
    parse = module(kind).parse
    try:
        with_ = parse("\n".join(lines[lo:hi]) + "\n")
    except ValueError:
        return False
    try:
        without = parse("\n".join(lines[lo:mid]) + "\n")
    except ValueError:
        return True  # a banner alone is no output; with these lines it is
    more_warnings = len(with_.get("warnings") or []) > len(without.get("warnings") or [])
    return not more_warnings and with_ != without


def _mergeable(prev: tuple[str | None, int, int], cur: tuple[str | None, int, int],
               lines: list[str]) -> bool:
    kind = prev[0]
    if kind is None or kind != cur[0] or kind in _ONE_RESULT:
        return False
    if kind == "strace-c":
        # "strace: Process N attached" lines and their table are one output; two tables are two.
        has_table = any(_start_kind(lines[i]) == "strace-c" for i in range(prev[1], prev[2]))
        return not has_table
    return True



def _candidate_lines(lines: list[str], lo: int, hi: int) -> list[int]:
    """Indices (lo < i < hi) of the lines holding a marker word, found by substring search over the
    stretch at C speed: a 10 MB single-tool log has a handful, where testing _CANDIDATE on each of its
    100,000 lines took a third of its import."""
    joined = "\n".join(lines[lo:hi])
    hits = sorted({pos for marker in _MARKERS for pos in _find_all(joined, marker)})
    found: list[int] = []
    line, at = 0, 0
    for pos in hits:
        # Newlines counted between consecutive hits only: linear in the text, at C speed.
        line += joined.count("\n", at, pos)
        at = pos
        if line and (not found or found[-1] != lo + line):
            found.append(lo + line)
    return found


def _find_all(text: str, word: str) -> list[int]:
    out = []
    pos = text.find(word)
    while pos != -1:
        out.append(pos)
        pos = text.find(word, pos + 1)
    return out


def _plain(lines: list[str], lo: int, hi: int) -> list[tuple[str | None, int, int]]:
    """(kind, start, end) pieces of lines[lo:hi], a stretch without prompts: cut where a tool's
    output visibly begins, then blocks told apart by the detectors."""
    cuts = [lo]
    candidate = _CANDIDATE.search
    for i in _candidate_lines(lines, lo, hi):
        line = lines[i]
        # An indented line continues an output (netqtop's QueueID header sits under its date and TX),
        # except wrk's, perf stat's and k6's first lines, which tools print indented.
        if not candidate(line) or (line[:1].isspace() and not any(w in line for w in _INDENTED_STARTS)):
            continue
        if _start_kind(line) is not None:
            cuts.append(i)
    cuts.append(hi)
    pieces: list[tuple[str | None, int, int]] = []
    for a, b in pairwise(cuts):
        for piece in _pieces(lines, a, b, marked=a < b and _start_kind(lines[a]) is not None):
            if pieces and _mergeable(pieces[-1], piece, lines):
                pieces[-1] = (pieces[-1][0], pieces[-1][1], piece[2])
            else:
                pieces.append(piece)
    return pieces


def _part(lines: list[str], kind: str | None, a: int, b: int, command: JSON | None = None) -> JSON:
    body = lines[a:b]
    shown = body[1:] if command is not None else body
    preview = [ln for ln in shown if ln.strip()][:3]
    warnings: list[str] = []
    if kind is None:
        where = f"line {a + 1} is" if b - a == 1 else f"lines {a + 1}-{b} are"
        if command is not None and not preview:
            warnings.append(f"line {a + 1}: {command['command']!r} printed nothing; not imported")
        elif command is not None:
            warnings.append(f"{where} the output of {command['command'][:60]!r}, which perflab does not read;"
                            " not imported")
        else:
            warnings.append(
                f"{where} not the output of a tool perflab knows"
                f" (starting {preview[0].strip()[:60]!r}); not imported"
            )
    part: JSON = {"kind": kind, "start_line": a + 1, "end_line": b, "text": "\n".join(body) + "\n",
                  "preview": preview, "warnings": warnings}
    if command is not None:
        part.update(command)
    return part


# Outputs of unknown commands that the detectors examine, at most, in one transcript
_DETECTED = 200
# An output that is only the shell's complaint: the command did not run
_FAILED = ("command not found", "No such file or directory", "Permission denied", "not found", "Usage:",
           "usage:", "invalid option", "Operation not permitted")


def _transcript(lines: list[str], prompts: list[tuple[int, str, str]]) -> list[JSON]:
    """Parts of a terminal session: what precedes the first prompt split as before, then one part
    per prompt line and the output under it (several when a `cat` of a saved file holds several tools)."""
    parts = [_part(lines, kind, a, b) for kind, a, b in _plain(lines, 0, prompts[0][0])]
    bounds = [p[0] for p in prompts] + [len(lines)]
    detected = 0
    for (at, shown, typed), end in zip(prompts, bounds[1:], strict=True):
        kind, options, info = command_kind(typed)
        command: JSON = {"command": typed, "prompt": shown, "options": options,
                         "interval_s": info.get("interval_s")}
        out = [ln for ln in lines[at + 1 : end] if ln.strip()]
        while end > at + 1 and not lines[end - 1].strip():
            end -= 1  # blank lines before the next prompt belong to no output
        if not out:
            parts.append(_part(lines, None, at, end, command))
            continue
        if len(out) <= 2 and any(f in out[0] for f in _FAILED):
            part = _part(lines, None, at, end, command)
            part["warnings"] = [f"line {at + 2}: {typed[:60]!r} failed: {out[0].strip()[:80]!r}; not imported"]
            parts.append(part)
            continue
        # The output is split as a paste is: what was pasted under it without a prompt of its own
        # (another tool's table, a note) is its own part. The command names the first piece's kind;
        # an unknown command's (a cat of a saved file, a script) is what the detectors say, if it has a
        # few lines (every tool prints a header and a row at least; `ip route` one line). Detectors cost
        # a few ms per output: past _DETECTED outputs (no real session has that many; a flood of them
        # is no evidence), the rest are not examined.
        pieces = _plain(lines, at + 1, end) if len(out) >= 3 and detected < _DETECTED else []
        detected += len(out) >= 3
        if not pieces:
            parts.append(_part(lines, kind, at, end, command))
            continue
        first_kind, _, first_end = pieces[0]
        if len(pieces) == 1:
            first_end = end
        parts.append(_part(lines, kind or first_kind, at, first_end, command))
        # later pieces: pasted under the command, or a saved file holding several tools' outputs
        parts.extend(_part(lines, k, a, b) for k, a, b in pieces[1:])
    return parts


_SIGIL = re.compile(r"[$#%]")
_NON_BLANK = re.compile(r"\S")
# A run of blank lines between two non-blank ones (blank: whitespace only, as _blocks reads them).
_BLANK_RUN = re.compile(r"\n(?:[^\S\n]*\n)+")


def one_output(text: str) -> bool:
    """Whether ``split(text)`` would give the text back as one part, told without splitting it: no colour codes,
    no shell prompt, no line where an output visibly begins after the first non-blank one, and one block of
    lines (or more than a piece is examined by). A single tool's 10 MB log is told so in C-speed scans over the
    text (a handful of lines looked at in Python), where splitting it held a string per line and cost a sixth
    of its import. False means it may hold several: ``split`` says how many."""
    if "\x1b" in text:
        return False
    if _has_prompt(text):
        return False
    first = _NON_BLANK.search(text)
    if first is None:
        return True
    first_line = text.rfind("\n", 0, first.start()) + 1
    candidate = _CANDIDATE.search
    for marker in _MARKERS:
        pos = text.find(marker, first_line)
        while pos != -1:
            start = text.rfind("\n", 0, pos) + 1
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            if start > first_line:
                # What _plain cuts at (see there); its first line only marks what follows.
                line = text[start:end].removesuffix("\r")
                if candidate(line) and (not line[:1].isspace() or any(w in line for w in _INDENTED_STARTS)) and (
                        _start_kind(line) is not None):
                    return False
            pos = text.find(marker, end)
    last = len(text.rstrip())
    runs = 0
    for _ in _BLANK_RUN.finditer(text, first.start(), last):
        runs += 1
        if runs >= _MAX_BLOCKS:
            return True  # more blocks than _pieces examines: one piece (pidstat prints a block a second)
    return runs == 0


def _has_prompt(text: str) -> bool:
    """Whether a line is a shell prompt, as split() tests its lines; only lines holding a prompt's sigil are
    looked at (every prompt has one)."""
    if "$" not in text and "#" not in text and "%" not in text:
        return False  # three memchr scans: faster than the pattern's
    m = _SIGIL.search(text)
    while m is not None:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        end = len(text) if end == -1 else end
        line = text[start:end].removesuffix("\r")
        if (line[:1] in _PROMPT_STARTS or "@" in line[:80] or line[:1].isalpha()) and prompt(line) is not None:
            return True
        m = _SIGIL.search(text, end)
    return False


def split(text: str) -> list[JSON]:
    """The parts of ``text``, in order; see the module docstring."""
    if "\x1b" in text:
        # a `script` typescript or a colored paste: the colors are not the tools' output
        text = _ANSI.sub("", text)
    lines = split_lines(text)
    prompts = []
    for i, line in enumerate(lines):
        if line[:1] in _PROMPT_STARTS or "@" in line[:80] or line[:1].isalpha():
            found = prompt(line)
            if found is not None:
                prompts.append((i, found[0], found[1]))
    if prompts:
        parts = _transcript(lines, prompts)
    else:
        parts = [_part(lines, kind, a, b) for kind, a, b in _plain(lines, 0, len(lines))]
    if len(parts) == 1 and parts[0]["kind"] is not None:
        # One tool: the part is the whole text, blank edges included, so it parses as before.
        parts[0]["start_line"], parts[0]["end_line"], parts[0]["text"] = 1, len(lines), text
    return parts
