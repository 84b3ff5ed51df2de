"""Stack blocks followed by a count line: SystemTap (openresty-systemtap-toolkit's ``sample-bt``)
and DTrace aggregations.

``sample-bt -p PID -t 5 -u`` (and ``-k``, ``-uk``) prints, for each distinct backtrace, the frames
innermost first, then a tab and the number of times it was sampled::

     0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]
     0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]
     0x4121aa : ngx_create_pool+0x1a/0x90 [/opt/nginx/sbin/nginx]
    	2404

Frames are cleaned as FlameGraph's stackcollapse-stap.pl does: leading blanks dropped, everything
from the last ``+`` on dropped (``+0xb/0x10 [kernel]``), everything up to the last `` : `` dropped
(the address), an empty frame shown as ``-``. Blank lines are ignored; a count line is blanks and
digits only. ``ngx-sample-lua-bt`` output (``@/path/file.lua:12``, ``C:ngx_http_lua_...``) is read
the same way.

DTrace ``ustack()``/``stack()`` aggregations (``format = "dtrace"``) start with the
``CPU     ID    FUNCTION:NAME`` header and the probe line, then the same block shape with frames
like ``genunix`kmem_cpu_reload+0x20``; their frames are cleaned as FlameGraph's stackcollapse.pl
does (offset and C++ arguments dropped, ``a->b`` inlined frames split with ``_[i]``).

Counts are samples. ``;`` inside a frame becomes ``:`` (it separates frames in folded stacks).
A stack after the last count line, with no count of its own, is left out with a warning.
"""

from __future__ import annotations

import re

from .model import Profile, ProfileError

FORMAT = "stap"
DTRACE_FORMAT = "dtrace"

COUNT_LINE = re.compile(r"\s*\d+\s*$")
DTRACE_HEADER = re.compile(r"\s*CPU\s+ID\s+FUNCTION:NAME\s*$")
_OFFSET = re.compile(r"\+[^+]*$")
_FOLDED_LIKE = re.compile(r"\s\d+\s*$")
_STAP_FRAME = re.compile(r"\s*0x[0-9a-f]+ : \S")  # " 0x4121aa : ngx_create_pool+0x1a/0x90 [...]"
_MAX_COUNT_DIGITS = 18


# The scripts' s/.* : // and s/(::.*)[(<].*/$1/ are done with rfind: as regexes they are
# quadratic on long lines.


def _stap_frame(line: str) -> list[str]:
    frame = _OFFSET.sub("", line.lstrip(), count=1)
    address_end = frame.rfind(" : ")  # s/.* : //: everything up to the last " : "
    if address_end >= 0:
        frame = frame[address_end + 3 :]
    return [frame.replace(";", ":") or "-"]


def _dtrace_frame(line: str) -> list[str]:
    frame = _OFFSET.sub("", line.lstrip(), count=1)
    scope = frame.find("::")  # s/(::.*)[(<].*/$1/: cut at the last ( or < after the first ::
    if scope >= 0:
        cut = max(frame.rfind("("), frame.rfind("<"))
        if cut >= scope + 2:
            frame = frame[:cut]
    frame = frame or "-"
    out: list[str] = []
    for part in frame.split("->"):
        part = part.replace(";", ":")
        part = part.removeprefix("L")
        if out:
            part += "_[i]"
        out.append(part)
    return out


def looks_like_stack_blocks(lines: list[str]) -> bool:
    """Count-only lines right after a frame line that is not itself folded ("a;b 3"), and at
    least as many of them as folded-looking lines. A first stack longer than the lines looked
    at has no count line among them: then every line must be a SystemTap frame line."""
    blocks = folded = stap = frames = 0
    previous = ""  # "count", "folded" or "frame"
    for line in lines:
        if not line.strip():
            continue
        if COUNT_LINE.match(line):
            blocks += previous == "frame"
            previous = "count"
        elif line[:1].strip() and _FOLDED_LIKE.search(line):
            folded += 1
            previous = "folded"
        else:
            frames += 1
            stap += _STAP_FRAME.match(line) is not None
            previous = "frame"
    if blocks == 0:
        return folded == 0 and frames >= 100 and stap == frames
    return blocks >= folded


def parse_stack_blocks(text: str, *, unit: str | None = None, name: str = "") -> Profile:
    lines = text.split("\n")
    start = 0
    fmt = FORMAT
    clean = _stap_frame
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and DTRACE_HEADER.match(lines[first]):
        # stackcollapse.pl skips the column header, the probe line and the blank line after it.
        fmt, clean, start = DTRACE_FORMAT, _dtrace_frame, first + 2
    stacks: dict[str, int] = {}
    frames: list[str] = []
    frames_from = 0
    warnings: list[str] = []
    empty = 0
    for no in range(start, len(lines)):
        line = lines[no].rstrip("\r")
        if COUNT_LINE.match(line):
            tok = line.strip()
            if len(tok) > _MAX_COUNT_DIGITS:
                raise ProfileError(f"count {tok[:30]}... is too large", no + 1)
            if frames:
                frames.reverse()  # innermost frame first in the input, outermost first here
                stack = ";".join(frames)
                stacks[stack] = stacks.get(stack, 0) + int(tok)
            else:
                empty += 1
            frames = []
            continue
        if not line.strip():
            continue
        if not frames:
            frames_from = no + 1
        # clean() returns frames outermost first; the list is reversed when the count comes.
        frames.extend(reversed(clean(line)))
    if frames:
        warnings.append(
            f"line {frames_from}: the last stack has no count line after it; left out"
        )
    if empty:
        warnings.append(f"{empty} count lines had no stack before them; left out")
    if not stacks:
        raise ProfileError("no stacks: expected frame lines followed by a count line")
    return Profile(stacks=stacks, unit=unit or "samples", format=fmt, warnings=warnings, name=name)
