"""Folded stacks: one stack per line, frames outermost first, then a space and a count::

    nginx;[unknown];__GI___writev;entry_SYSCALL_64_after_hwframe;do_syscall_64 2004008

What FlameGraph's ``stackcollapse-*.pl`` scripts print and ``flamegraph.pl`` reads. The count
can be in any unit (samples, nanoseconds, bytes); the file does not say which, so ``unit``
defaults to "samples" unless the uploader names it. When every count shares a large common
factor (2004008 is one cpu-clock period at 499 Hz), a warning suggests they are periods.

The count is what follows the last blank of a line, as in flamegraph.pl: frame names may hold
blanks ("operator new", Java's "Ljava/lang/Thread;::run ", a frame that is one space).

Accepted as flamegraph.pl accepts them: trailing spaces and CRLF line ends, blank lines, the same
stack on several lines (counts are added), and difffolded.pl's two-count lines (``stack 12 30``),
where the second count is the profile, as flamegraph.pl draws it. Refused, naming the line: a
line without a count, a count without a stack, a count that is not a whole number.
"""

from __future__ import annotations

import math
import re

from .model import MAX_NODES, Profile, ProfileError, _Trie

FORMAT = "folded"
_MAX_COUNT_DIGITS = 18  # a sum of many must still fit PostgreSQL's bigint
_PERIOD_HINT = 10_000  # a common factor this large is a sampling period, not a sample count


def _show(line: str) -> str:
    line = line.strip()
    return repr(line[:57] + "..." if len(line) > 60 else line)


def _count(tok: str) -> int | None:
    if tok.isascii() and tok.isdigit():
        if len(tok) > _MAX_COUNT_DIGITS:
            return -1
        return int(tok)
    return None


# The usual file in bulk, in C: every line blank or "stack count" (the count after the last blank).
# Greedy (.*) backtracks only from the end of its line, so the split is linear in the text; the
# two-count test starts with a literal blank, which the regex engine finds without trying every
# position.
_LINE = re.compile(r"^(.*)[ \t]([0-9]{1,18})[ \t\r]*$", re.MULTILINE)
_STACK_AT_LINE = re.compile(r"^(.*)[ \t][0-9]{1,18}[ \t\r]*$", re.MULTILINE)
_TWO_COUNTS = tuple(
    re.compile(blank + r"[0-9]{1,18}[ \t]+[0-9]{1,18}[ \t\r]*$", re.MULTILINE) for blank in (" ", "\t")
)


def _bulk(text: str) -> dict[str, int] | None:
    """The stacks of a file whose every line is plain, or None (then the line loop reads it and
    names what is wrong, or reads difffolded.pl's two counts). About five times quicker than the
    loop on 100,000 frames."""
    if any(p.search(text) for p in _TWO_COUNTS):
        return None
    parts = _LINE.split(text)  # [between, stack, count, between, stack, count, ..., between]
    if "".join(parts[0::3]).strip():  # a line that is neither blank nor "stack count"
        return None
    stack_list, counts = parts[1::3], parts[2::3]
    stacks = dict(zip(stack_list, map(int, counts)))
    if len(stacks) < len(stack_list):  # the same stack on several lines: add them up
        stacks = {}
        get = stacks.get
        for stack, tok in zip(stack_list, counts):
            stacks[stack] = get(stack, 0) + int(tok)
    if "" in stacks or not stacks:
        return None
    return stacks


_CHUNK = 4 << 20  # characters split at once: the split's list costs ~10x its text for short lines


def _too_many_stacks() -> ProfileError:
    # Each distinct stack ends at its own node: more stacks than MAX_NODES cannot make a tree.
    return ProfileError(
        f"more than {MAX_NODES:,} distinct stacks, so more distinct call paths (frames) than the limit per "
        "profile: fold fewer stacks (a shorter recording, or drop rare stacks) and upload again",
        too_large=True,
    )


def _check_nodes(chunk: str) -> None:
    """Raises ProfileError (too_large) when the stacks of ``chunk`` alone make more tree nodes than
    MAX_NODES: the wide-and-deep bomb (4,096-frame stacks under distinct roots, a node per two
    bytes) stops in its first few MB instead of after the whole upload is parsed."""
    counts: dict[str, int] = {}
    for match in _STACK_AT_LINE.finditer(chunk):
        counts[match.group(1)] = 1
    _Trie.build([counts])  # raises past MAX_NODES, as soon as it gets there


def _bulk_chunks(text: str) -> dict[str, int] | None:
    """:func:`_bulk` a few MB of whole lines at a time, stopping as soon as there are more stacks
    than a profile may have: memory follows the stacks kept, not ten times the text."""
    stacks: dict[str, int] | None = None
    start = 0
    while start < len(text):
        end = text.find("\n", min(start + _CHUNK, len(text)) - 1)
        end = len(text) if end < 0 else end + 1
        chunk = text[start:end] if (start or end < len(text)) else text
        # A chunk's own call tree is part of the whole one: past the limit, so is the whole. Only
        # a chunk with more frames than the limit can be, so most chunks skip the check.
        if chunk.count(";") + chunk.count("\n") > MAX_NODES:
            _check_nodes(chunk)
        part = _bulk(chunk)
        del chunk
        if part is None:
            if text[start:end].strip():
                return None  # a line the line loop must read (and name, or read as two counts)
        elif stacks is None:
            stacks = part
        else:
            get = stacks.get
            for stack, count in part.items():
                stacks[stack] = get(stack, 0) + count
        if stacks is not None and len(stacks) > MAX_NODES:
            raise _too_many_stacks()
        start = end
    return stacks


def parse_folded(
    text: str, *, unit: str | None = None, name: str = "", two_counts: bool = True
) -> Profile:
    """Read folded text. ``two_counts=False`` reads "a;b 12 30" as the frame "b 12" with a count
    of 30 (for text we wrote ourselves, where a frame may end in a number)."""
    bulk = _bulk_chunks(text)
    if bulk is not None:
        return _profile(bulk, [], unit, name)
    stacks: dict[str, int] = {}
    get = stacks.get
    warnings: list[str] = []
    two_column = 0
    for no, line in enumerate(text.split("\n"), 1):
        line = line.rstrip()
        if not line:
            continue
        # The count follows the last blank (flamegraph.pl's /^(.*)\s+?(\d+)$/): everything before
        # it is the stack, blanks included, so a frame named "operator new" or " " survives.
        cut = max(line.rfind(" "), line.rfind("\t"))
        stack, sep, tok = line[: max(cut, 0)], cut >= 0, line[cut + 1 :]
        count = _count(tok) if sep else None
        if count is None:
            if tok.replace(".", "", 1).isdigit() and tok.isascii():
                raise ProfileError(f"count {tok!r} is not a whole number", no)
            raise ProfileError(
                f"expected 'frame;frame;... count', found {_show(line)} (no count at the end)", no
            )
        if count < 0:
            raise ProfileError(f"count {tok[:30]}... is too large", no)
        # difffolded.pl output: "stack count1 count2"; flamegraph.pl draws count2.
        if two_counts:
            cut = max(stack.rfind(" "), stack.rfind("\t"))
            if cut > 0 and _count(stack[cut + 1 :]) is not None:
                two_column += 1
                stack = stack[:cut]
        if not stack:
            raise ProfileError(f"count {tok} has no stack before it", no)
        stacks[stack] = get(stack, 0) + count
        if len(stacks) > MAX_NODES:
            raise _too_many_stacks()
    if not stacks:
        raise ProfileError("no stacks: expected lines of 'frame;frame;... count'")
    if two_column:
        warnings.append(
            f"{two_column} lines have two counts (difffolded.pl output): the second one is used, "
            "as flamegraph.pl does; upload the two profiles separately to diff them"
        )
    return _profile(stacks, warnings, unit, name)


def _profile(stacks: dict[str, int], warnings: list[str], unit: str | None, name: str) -> Profile:
    # Said "samples" (or nothing) but every count is a multiple of a large period: perf's nanoseconds.
    if unit in (None, "samples"):
        common = math.gcd(*stacks.values())
        if common >= _PERIOD_HINT:
            warnings.append(
                f"every count is a multiple of {common}: these look like sampling periods "
                "(perf's cpu-clock counts nanoseconds), not samples; upload with "
                "unit=nanoseconds, or correct the unit of this profile (PATCH unit)"
            )
    return Profile(stacks=stacks, unit=unit or "samples", format=FORMAT, warnings=warnings, name=name)
