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
0.0085%). A frame whose total is at least that share is present with its exact count; a left-out
frame's count stays in its parent's self count (at the root, where nothing has self time, it
becomes a ``[pruned]`` frame). ``Profile.tolerance`` is that share, computed from the image
width. Counts are exact otherwise (titles print them, rounded to integers). flamegraph.pl also
strips ``_[k]``, ``_[j]``, ``_[i]`` and ``_[w]`` annotations from names.

Security: parsed with defusedxml (no DTD entities, no external references: a billion-laughs or
external-entity file is refused at its declaration, before anything is expanded or read); the
file's script is never run, only titles and rectangles are read.
"""

from __future__ import annotations

import io
import math
import re
from bisect import bisect_right
from typing import Any
from xml.etree.ElementTree import ParseError as XMLParseError

# No type stubs ship with defusedxml (and the project adds no stub package for two names).
from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
from defusedxml.ElementTree import iterparse  # type: ignore[import-untyped]

from .model import Profile, ProfileError

FORMAT = "svg"
PRUNED = "[pruned]"
DEFAULT_MINWIDTH_PX = 0.1  # flamegraph.pl --minwidth default
_XPAD = 10  # flamegraph.pl's left and right margin, px
_DEFAULT_DRAWABLE = 1200 - 2 * _XPAD  # flamegraph.pl's default --width minus the margins

# The part of a title after the name's last " (": "2,004,008 samples, 0.06%)", maybe with a
# differential graph's "; +0.12%". Found with rfind, not a leading (.*): that is quadratic.
_TITLE_TAIL = re.compile(
    r"(?P<count>\d[\d,]*(?:\.\d+)?) (?P<countname>[^,]*?), (?P<pct>[\d.]+)%(?:; [+-]?[\d.]+%)?\)\s*"
)
_INFERNO_NS = "{http://github.com/jonhoo/inferno}"


def _local(tag: Any) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    value = value.strip().removesuffix("%").removesuffix("px")
    try:
        number = float(value)
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


def _read_frames(data: bytes) -> tuple[list[_Frame], float | None, str | None, int, bool]:
    """(frames, svg width, count name, skipped, pixels) from the <g>/<a> elements that hold a
    frame; ``pixels`` is false when positions are percentages or sample offsets (inferno)."""
    frames: list[_Frame] = []
    width: float | None = None
    countname: str | None = None
    skipped = 0
    saw_svg = False
    pixels = True
    try:
        for event, elem in iterparse(io.BytesIO(data), events=("start", "end")):
            if event == "start":
                if not saw_svg:
                    if _local(elem.tag) != "svg":
                        raise ProfileError("an XML file that is not an SVG")
                    saw_svg = True
                    width = _number(elem.get("width"))
                continue
            tag = _local(elem.tag)
            if tag not in ("g", "a"):
                continue
            title = rect = None
            for child in elem:
                ctag = _local(child.tag)
                if ctag == "title" and title is None:
                    title = child
                elif ctag == "rect" and rect is None:
                    rect = child
            if title is None or rect is None:
                continue
            text = "".join(title.itertext())
            cut = text.rfind(" (")
            m = _TITLE_TAIL.fullmatch(text, cut + 2) if cut >= 0 else None
            fg_x, fg_w = elem.get(_INFERNO_NS + "x"), elem.get(_INFERNO_NS + "w")
            if fg_x is not None or (rect.get("x") or "").endswith("%"):
                pixels = False
            x = _number(fg_x) if fg_x is not None else _number(rect.get("x"))
            w = _number(fg_w) if fg_w is not None else _number(rect.get("width"))
            y = _number(rect.get("y"))
            if m is None or x is None or w is None or y is None:
                skipped += 1
                elem.clear()
                continue
            name = text[:cut]
            if any(c in name for c in ";\n\r\x00"):
                name = name.replace(";", ":").replace("\n", " ").replace("\r", " ").replace("\x00", "\ufffd")
            count = float(m.group("count").replace(",", ""))
            if countname is None:
                countname = m.group("countname")
            frames.append(_Frame(name, round(count), x, w, y))
            elem.clear()  # keep memory flat on big graphs
    except DefusedXmlException as exc:
        raise ProfileError(f"SVG refused: {type(exc).__name__} (DTD entities and external references are not allowed)") from None
    except ProfileError:
        raise
    except (XMLParseError, ValueError) as exc:  # expat's errors; ValueError: bad encodings
        raise ProfileError(f"not a well-formed SVG: {exc}") from None
    return frames, width, countname, skipped, pixels


def parse_svg(data: bytes, *, unit: str | None = None, name: str = "") -> Profile:
    frames, svg_width, countname, skipped, pixels = _read_frames(data)
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
    misplaced = 0
    for depth in range(1, len(by_row)):
        parents = sorted(by_row[depth - 1], key=lambda f: f.x)
        starts = [p.x for p in parents]
        for f in by_row[depth]:
            mid = f.x + f.w / 2
            i = bisect_right(starts, mid) - 1
            # The rounded middle can fall just outside its parent (x and width are rounded to
            # 0.1 px): take the nearer of the two neighbours.
            best: _Frame | None = None
            best_gap = float("inf")
            for j in (i, i + 1):
                if 0 <= j < len(parents):
                    p = parents[j]
                    gap = max(p.x - mid, mid - (p.x + p.w), 0.0)
                    if gap < best_gap:
                        best, best_gap = p, gap
            if best is None or best_gap > max(root.w * 0.001, 1e-9):
                misplaced += 1
                continue
            f.parent = best
            best.children += f.count
    if misplaced:
        warnings.append(f"{misplaced} frames lie outside every frame of the row below; left out")

    stacks: dict[str, int] = {}
    paths: dict[int, str] = {id(root): ""}
    negative = 0
    for depth in range(1, len(by_row)):
        for f in by_row[depth]:
            if f.parent is None or id(f.parent) not in paths:
                continue
            parent_path = paths[id(f.parent)]
            path = f"{parent_path};{f.name}" if parent_path else f.name
            paths[id(f)] = path
            self_count = f.count - f.children
            if self_count < 0:
                negative += 1
                continue
            if self_count:
                stacks[path] = stacks.get(path, 0) + self_count
    pruned = root.count - root.children
    if pruned > 0:
        stacks[PRUNED] = stacks.get(PRUNED, 0) + pruned
    if negative:
        warnings.append(f"{negative} frames are narrower than their children's counts add up to")
    if not stacks:
        raise ProfileError("the SVG's frames hold no samples")

    # Tolerance: the share of the total a frame needs to be drawn at all (0.1 px of the
    # root's width; flamegraph.pl and inferno both leave 10 px margins on each side).
    if pixels and root.w > 0:
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
