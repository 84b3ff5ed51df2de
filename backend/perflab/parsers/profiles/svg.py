"""flamegraph.pl SVGs converted back to stacks (approximate: ``lossy=True``).

flamegraph.pl draws each node of the merged call tree as::

    <g><title>tcp_sendmsg (2,004,008 samples, 0.06%)</title>
       <rect x="118.3" y="1061" width="0.7" height="15.0" .../><text ...>..</text></g>

The title carries the node's exact count (its name and count; commas are thousands separators;
a differential graph adds ``; +0.12%``); the rectangle says where it sits: ``y`` gives the depth
(one row per level: rows are counted from the root, at the bottom of a flame graph and at the top
of an icicle graph), ``x``..``x+width`` the slice of its parent. Rebuilding: rows by distinct
``y``, each frame's parent is the frame one row closer to the root whose x-range holds the frame's
middle; the stack of a frame is the chain of names up to the root (``all``, not a frame); a frame's
self count is its count minus its children's counts. Frames of the same name under the same
parent, drawn as several rectangles (flamegraph.pl splits a frame when the sorted input
interleaves it with a longer name, and ``--flamechart`` never merges), are merged. inferno's
SVGs (``x="12.5%"``, exact ``fg:x``/``fg:w`` sample offsets) are read the same way.

Tolerance (why ``lossy``): flamegraph.pl leaves out frames narrower than ``--minwidth`` (default
0.1 px; the default image is 1200 px wide with 10 px margins, so 0.1 / 1180 of the total, about
0.0085%), and prints positions rounded to 0.1 px. A frame whose total is at least that share sits
at least 0.05 px inside its parent, so it is placed exactly and keeps its exact count (titles
print counts, rounded to integers). A left-out frame's count stays in its parent's self count (at
the root, where nothing has self time, it becomes a ``[pruned]`` frame). ``Profile.tolerance`` is
that share, computed from the image width. Graphs drawn with ``--minwidth 0`` also hold frames
narrower than the rounding: each goes under a frame within 0.05 px that still has room for its
count (none is ever overfilled, so every frame's total stays exact and the profile total is the
root's), or is left out as above; such a frame can end up under a neighbour of its true parent.
flamegraph.pl also strips ``_[k]``, ``_[j]``, ``_[i]`` and ``_[w]`` annotations from names.

Security: parsed by expat with defusedxml's guard: entity declarations are refused (a billion-laughs
or external-entity file fails at its declaration, before anything is expanded or read), and no
external reference is ever followed (flamegraph.pl's DOCTYPE names the SVG 1.1 DTD: it is not
fetched). The file's script is never run; only titles and rectangles are read.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from typing import Any
from xml.parsers import expat

# No type stubs ship with defusedxml (and the project adds no stub package for two names).
from defusedxml import DefusedXmlException, EntitiesForbidden  # type: ignore[import-untyped]

from .model import MAX_DEPTH, Profile, ProfileError

FORMAT = "svg"
_ODD_NAME = re.compile("[;\n\r\x00]")
PRUNED = "[pruned]"
DEFAULT_MINWIDTH_PX = 0.1  # flamegraph.pl --minwidth default
_XPAD = 10  # flamegraph.pl's left and right margin, px
_DEFAULT_DRAWABLE = 1200 - 2 * _XPAD  # flamegraph.pl's default --width minus the margins
# Characters of folded stacks an SVG may unfold into: this many per byte of SVG, at least the
# minimum. flamegraph.pl draws a frame in ~150 bytes, so real graphs stay far below it.
_EXPANSION = 8
_MIN_EXPANSION = 16 << 20

# The part of a title after the name's last " (": "2,004,008 samples, 0.06%)", maybe with a
# differential graph's "; +0.12%". Found with rfind, not a leading (.*): that is quadratic.
_TITLE_TAIL = re.compile(
    r"(?P<count>\d[\d,]*(?:\.\d+)?) (?P<countname>[^,]*?), (?P<pct>[\d.]+)%(?:; [+-]?[\d.]+%)?\)\s*"
)


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)  # the usual "118.3": no stripping needed
    except ValueError:
        try:
            number = float(value.strip().removesuffix("%").removesuffix("px"))
        except ValueError:
            return None
    return number if math.isfinite(number) else None


class _Frame:
    __slots__ = ("children", "count", "name", "parent", "w", "x", "y")

    def __init__(self, name: str, count: int, x: float, w: float, y: float) -> None:
        self.name = name
        self.count = count
        self.x = x
        self.w = w
        self.y = y
        self.parent: _Frame | None = None
        self.children = 0  # sum of the children's counts


class _FrameReader:
    """Expat handlers collecting frames: a <g> (or <a>) whose first <title> and <rect> children
    describe one frame. Streamed, not ElementTree: no tree is needed."""

    def __init__(self) -> None:
        self.frames: list[_Frame] = []
        self.width: float | None = None
        self.countname: str | None = None
        self.skipped = 0
        self.units = "px"
        self.depth = 0
        self.saw_svg = False
        # The innermost open <g>/<a>: [depth, title parts or None, rect attrs or None, fg x, fg w]
        self.open: list[list[Any]] = []
        self.title: list[str] | None = None
        self.parser: Any = None  # the expat parser, whose text handler is on only inside titles

    def startElement(self, name: str, attrs: Any) -> None:
        tag = name.rpartition(":")[2]
        self.depth += 1
        if not self.saw_svg:
            if tag != "svg":
                raise ProfileError("an XML file that is not an SVG")
            self.saw_svg = True
            self.width = _number(attrs.get("width"))
            return
        if tag in ("g", "a"):
            self.open.append([self.depth, None, None, attrs.get("fg:x"), attrs.get("fg:w")])
        elif self.open and self.open[-1][0] == self.depth - 1:
            frame = self.open[-1]
            if tag == "title" and frame[1] is None:
                frame[1] = self.title = []
                if self.parser is not None:  # text goes straight into the list, no Python call
                    self.parser.CharacterDataHandler = self.title.append
            elif tag == "rect" and frame[2] is None:
                frame[2] = (attrs.get("x"), attrs.get("y"), attrs.get("width"))

    def characters(self, content: str) -> None:
        if self.title is not None:
            self.title.append(content)

    def endElement(self, name: str) -> None:
        tag = name.rpartition(":")[2]
        if tag == "title":
            self.title = None
            if self.parser is not None:
                self.parser.CharacterDataHandler = None
        elif tag in ("g", "a") and self.open and self.open[-1][0] == self.depth:
            self._frame(*self.open.pop()[1:])
        self.depth -= 1

    def _frame(self, title: list[str] | None, rect: tuple[str | None, ...] | None,
               fg_x: str | None, fg_w: str | None) -> None:
        if title is None or rect is None:
            return
        text = "".join(title)
        cut = text.rfind(" (")
        m = _TITLE_TAIL.fullmatch(text, cut + 2) if cut >= 0 else None
        exact = fg_x is not None and fg_w is not None
        if exact:
            self.units = "samples"
        elif (rect[0] or "").endswith("%") and self.units == "px":
            self.units = "percent"
        x = _number(fg_x) if exact else _number(rect[0])
        w = _number(fg_w) if exact else _number(rect[2])
        y = _number(rect[1])
        if m is None or x is None or w is None or y is None:
            self.skipped += 1
            return
        name = text[:cut]
        if _ODD_NAME.search(name):
            name = name.replace(";", ":").replace("\n", " ").replace("\r", " ").replace("\x00", "\ufffd")
        if self.countname is None:
            self.countname = m.group("countname")
        count = round(float(m.group("count").replace(",", "")))
        self.frames.append(_Frame(name, count, x, w, y))


def _forbid_entity(name: str, *_: Any) -> None:
    raise EntitiesForbidden(name, None, None, None, None, None)


def _read_frames(data: bytes) -> _FrameReader:
    reader = _FrameReader()
    # pyexpat itself, with defusedxml's guard: entity declarations, the only way to define XML
    # bombs or file-reading entities, are refused at the declaration (defusedxml's
    # EntitiesForbidden). flamegraph.pl's SVGs name the SVG 1.1 DTD in their DOCTYPE, so external
    # references cannot be refused outright; they are never followed instead: with no external
    # entity handler and parameter entities off (pyexpat's defaults), expat loads no external
    # subset. Direct handlers, not xml.sax: three times quicker on a 100,000-frame graph.
    parser = expat.ParserCreate()
    parser.EntityDeclHandler = _forbid_entity
    parser.UnparsedEntityDeclHandler = _forbid_entity
    parser.StartElementHandler = reader.startElement
    parser.EndElementHandler = reader.endElement
    parser.buffer_text = True
    reader.parser = parser
    try:
        parser.Parse(data, True)
    except DefusedXmlException as exc:
        raise ProfileError(
            f"SVG refused: {type(exc).__name__} (DTD entities and external references are not allowed)"
        ) from None
    except ProfileError:
        raise
    except (expat.ExpatError, ValueError) as exc:  # ValueError: bad encodings
        raise ProfileError(f"not a well-formed SVG: {exc}") from None
    return reader


def parse_svg(
    data: bytes, *, unit: str | None = None, name: str = "", max_depth: int = MAX_DEPTH
) -> Profile:
    reader = _read_frames(data)
    frames, svg_width, countname = reader.frames, reader.width, reader.countname
    skipped, units = reader.skipped, reader.units
    if not frames:
        raise ProfileError(
            "no flame graph frames in this SVG (expected flamegraph.pl's "
            "<g><title>name (N samples, P%)</title><rect .../></g>)"
        )
    warnings: list[str] = []
    if skipped:
        warnings.append(f"{skipped} <g> elements with a title and a rectangle were not frames; skipped")

    # The root is the widest frame (flamegraph.pl calls it "all"; its count is the total).
    root = max(frames, key=lambda f: (f.w, f.count, f.name == "all"))
    others = [f for f in frames if f is not root]
    inverted = bool(others) and sum(f.y < root.y for f in others) < len(others) / 2
    # Rows: distinct y values ordered from the root outwards (rounded: "1185" == "1185.0").
    ys = sorted({round(f.y, 2) for f in frames}, reverse=not inverted)
    row = {y: i for i, y in enumerate(ys)}
    by_row: list[list[_Frame]] = [[] for _ in ys]
    for f in frames:
        by_row[row[round(f.y, 2)]].append(f)
    if row[round(root.y, 2)] != 0:
        raise ProfileError("the widest frame is not at the bottom (or top) row: not a flame graph")
    by_row[0] = [root]
    # Rounding slack of a position: flamegraph.pl prints x and width to 0.1 px; inferno prints
    # percentages to 4 decimals, or exact sample offsets (fg:x, fg:w).
    slack = {"px": 0.05, "percent": 0.05 / _DEFAULT_DRAWABLE * 100, "samples": 0.5}[units] + 1e-9
    misplaced = 0
    for depth in range(1, len(by_row)):
        parents = sorted(by_row[depth - 1], key=lambda f: f.x)
        starts = [p.x for p in parents]
        room = {id(p): p.count for p in parents}
        # Wide frames first: their middle is inside their parent whatever the rounding (a frame
        # of at least 0.1 px has its middle 0.05 px inside). Narrower ones (--minwidth 0) can sit
        # on a boundary; among the parents within the slack, the one with room for their count.
        for f in sorted(by_row[depth], key=lambda f: -f.w):
            mid = f.x + f.w / 2
            j = bisect_right(starts, mid + slack) - 1
            # The usual case: the middle is well inside one parent (more than the slack from
            # both of its edges, so no other parent is near) and the parent has room.
            if j >= 0:
                p = parents[j]
                if p.x + slack < mid < p.x + p.w - slack and room[id(p)] >= f.count and (
                    j + 1 == len(parents) or starts[j + 1] > mid + slack
                ):
                    f.parent = p
                    p.children += f.count
                    room[id(p)] -= f.count
                    continue
            near: list[tuple[float, _Frame]] = []
            # Leftwards from the last parent starting before the middle. Frames of a row do not
            # overlap, so past a parent that is wider than the rounding and ends before the
            # middle, nothing can hold it (narrower ones are rounding noise at a boundary).
            steps = 0
            while j >= 0 and steps < 256:
                p = parents[j]
                end = p.x + p.w
                if end < mid - slack and p.w > 2 * slack:
                    break
                gap = max(p.x - mid, mid - end, 0.0)
                if gap <= slack:
                    near.append((gap, p))
                j -= 1
                steps += 1
            near.sort(key=lambda gp: gp[0])
            best = next((p for _, p in near if room[id(p)] >= f.count), None)
            if best is None:
                # Nowhere it fits: leave it out, its count stays in its true parent's self time.
                # Never overfilling a parent keeps every frame's total equal to its title.
                misplaced += 1
                continue
            f.parent = best
            best.children += f.count
            room[id(best)] -= f.count
    if misplaced:
        warnings.append(
            f"{misplaced} frames narrower than the drawing's resolution could not be placed under "
            "a frame of the row below; left out (their time counts as their parent's self time)"
        )

    # Stacks are built only for frames with self time, by walking up their parents: no path per
    # frame is kept (that costs memory quadratic in the depth). The folded form of a tree can
    # still be quadratic in its size (a chain where every frame has self time), so the text built
    # here has a budget linear in the upload, and a depth cap (rows past it are left out, their
    # time counted in the frame at the cap).
    budget = max(_MIN_EXPANSION, _EXPANSION * len(data))
    used = 0
    stacks: dict[str, int] = {}
    placed: set[int] = {id(root)}
    negative = 0
    for depth in range(1, min(len(by_row), max_depth + 1)):
        for f in by_row[depth]:
            if f.parent is None or id(f.parent) not in placed:
                continue
            placed.add(id(f))
    deeper = sum(len(by_row[d]) for d in range(max_depth + 1, len(by_row)))
    for depth in range(1, min(len(by_row), max_depth + 1)):
        last_row = depth == max_depth
        for f in by_row[depth]:
            if id(f) not in placed:
                continue
            self_count = f.count if last_row else f.count - f.children
            if self_count < 0:
                negative += 1
                continue
            if not self_count:
                continue
            names: list[str] = []
            node: _Frame | None = f
            while node is not None and node is not root:
                names.append(node.name)
                node = node.parent
            names.reverse()
            path = ";".join(names)
            used += len(path) + 16
            if used > budget:
                raise ProfileError(
                    f"this SVG unfolds into more than {budget >> 20} MB of stacks (very deep "
                    "frames with self time at every level): upload the folded stacks instead",
                    too_large=True,
                )
            stacks[path] = stacks.get(path, 0) + self_count
    if deeper:
        warnings.append(
            f"{deeper} frames are deeper than {max_depth} levels: left out, their time counted "
            f"in the frame at level {max_depth}"
        )
    pruned = root.count - root.children
    if pruned > 0:
        stacks[PRUNED] = stacks.get(PRUNED, 0) + pruned
    if negative:
        warnings.append(f"{negative} frames are narrower than their children's counts add up to")
    if not stacks:
        raise ProfileError("the SVG's frames hold no samples")

    # Tolerance: the share of the total a frame needs to be drawn at all (0.1 px of the
    # root's width; flamegraph.pl and inferno both leave 10 px margins on each side).
    if units == "px" and root.w > 0:
        drawable = root.w
    else:
        drawable = (svg_width - 2 * _XPAD) if svg_width and svg_width > 4 * _XPAD else _DEFAULT_DRAWABLE
    tolerance = DEFAULT_MINWIDTH_PX / drawable
    warnings.append(
        "converted from a flame graph image: frames narrower than 0.1 px "
        f"(under {100 * tolerance:.4f}% of the total) are missing and counted in their "
        "parent; _[k]/_[i]/_[j] annotations are gone"
    )
    if countname and countname != "samples" and unit is None:
        unit = countname
    return Profile(
        stacks=stacks,
        unit=unit or "samples",
        format=FORMAT,
        lossy=True,
        tolerance=tolerance,
        warnings=warnings,
        name=name,
    )
