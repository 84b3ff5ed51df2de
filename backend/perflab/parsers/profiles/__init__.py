"""CPU profiles (flame graphs): four input formats, one model, the views the UI needs.

Pure: standard library and defusedxml only; nothing from the web stack or the database layer.

Input formats, recognised from their content (gzip or not, recognised by its magic bytes):

========================  =========================================  ===========================
``format``                what it is                                 counts (``unit``)
========================  =========================================  ===========================
``folded``                ``a;b;c 42`` lines (stackcollapse-*.pl)    as uploaded ("samples" unless
                                                                     ``unit=`` says otherwise)
``perf-script``           ``perf script`` text of ``perf record -g``  "nanoseconds" (cpu-clock or
                                                                     task-clock periods, exactly
                                                                     stackcollapse-perf.pl's
                                                                     output) or "samples"
``svg``                   a flamegraph.pl (or inferno) SVG           its count name ("samples");
                                                                     ``lossy=True``, see svg.py
``stap`` / ``dtrace``     SystemTap ``sample-bt`` / DTrace stacks    "samples"
========================  =========================================  ===========================

API::

    load_profile(data, *, name="", unit=None, max_bytes=DEFAULT_MAX_BYTES) -> Profile
    load_folded(data, *, unit, name="") -> Profile   # reads back what to_folded() wrote
    ProfileError(ValueError)          # .message, .line, .too_large (answer 413 when true)
    to_folded(profile) -> bytes       # byte-identical to stackcollapse-perf.pl for perf input
    tree(profile) -> dict             # {"names": [...], "nodes": [[name_idx, self, total, parent_idx]]}
    function_table(profile) -> list[FunctionRow]        # name, self, total
    diff_profiles(base, other) -> ProfileDiff           # merged tree, per-function deltas, factor
    build_call_tree(profile) -> CallTree                # the stored form of the tree (calltree.py):
    decode_call_tree(data) -> CallTree                  #   CallTree.encode() / .view() / .function_table()
    diff_trees(base, other) -> ProfileDiff              # diff_profiles of two stored trees
"""

from __future__ import annotations

import re

from ._input import DEFAULT_MAX_BYTES, decode_text, detect_format, read_capped
from .calltree import CallTree, diff_trees
from .calltree import build as build_call_tree
from .calltree import decode as decode_call_tree
from .folded import parse_folded
from .model import (
    MAX_DEPTH,
    MAX_NODES,
    TREE_MAX_NODES,
    TRUNCATED,
    FunctionDelta,
    FunctionRow,
    Profile,
    ProfileDiff,
    ProfileError,
    cap_depth,
    diff_profiles,
    function_table,
    to_folded,
    to_folded_gz,
    tree,
)
from .perf import fold_perf_script
from .prune import PRUNED
from .stap import parse_stack_blocks
from .svg import parse_svg

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FORMATS",
    "MAX_DEPTH",
    "MAX_NODES",
    "PRUNED",
    "TREE_MAX_NODES",
    "TRUNCATED",
    "CallTree",
    "FunctionDelta",
    "FunctionRow",
    "Profile",
    "ProfileDiff",
    "ProfileError",
    "build_call_tree",
    "decode_call_tree",
    "detect_format",
    "diff_profiles",
    "diff_trees",
    "function_table",
    "load_folded",
    "load_profile",
    "to_folded",
    "to_folded_gz",
    "tree",
]

FORMATS = ("folded", "perf-script", "svg", "stap", "dtrace")
_UNIT = re.compile(r"[A-Za-z][A-Za-z0-9 _./-]{0,31}")


def load_profile(
    data: bytes,
    *,
    name: str = "",
    unit: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Profile:
    """Read a profile in any supported format; raises :class:`ProfileError` on bad input.

    ``unit`` overrides what the counts are ("samples", "nanoseconds", ...); for perf script it
    also chooses the counting (``"samples"`` counts samples, anything else sums periods).
    ``max_bytes`` caps the input after decompression (``ProfileError.too_large`` when passed).
    """
    if unit is not None and not _UNIT.fullmatch(unit):
        raise ProfileError(f"unit {unit[:40]!r}: expected a word such as samples or nanoseconds")
    raw, warnings = read_capped(data, max_bytes)
    if not raw or raw.isspace():  # isspace() stops at the first other byte; strip() would copy
        raise ProfileError("empty profile")
    fmt = detect_format(raw)
    if fmt == "svg":
        profile = parse_svg(raw, unit=unit, name=name)
    elif fmt == "perf-script":
        profile = fold_perf_script(raw, unit=unit, name=name)
    else:
        text, more = decode_text(raw)
        warnings += more
        if fmt == "folded":
            profile = parse_folded(text, unit=unit, name=name)
        else:
            profile = parse_stack_blocks(text, unit=unit, name=name)
    profile.warnings[:0] = warnings
    cap_depth(profile)
    return profile


def load_folded(data: bytes, *, unit: str, name: str = "", max_bytes: int = DEFAULT_MAX_BYTES) -> Profile:
    """Read back folded stacks this package wrote (:func:`to_folded`, maybe gzipped): no format
    detection and no two-count lines, so every stored profile reads back exactly as it was."""
    raw, warnings = read_capped(data, max_bytes)
    text, more = decode_text(raw)
    profile = parse_folded(text, unit=unit, name=name, two_counts=False)
    profile.warnings[:0] = warnings + more
    return profile
