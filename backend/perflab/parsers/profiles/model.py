"""The one internal profile model every importer feeds, and what is computed from it.

A :class:`Profile` is a set of folded stacks: ``"root;caller;callee" -> count``. Frames are
separated by ``;`` (a frame name never contains ``;`` nor a line break: importers replace them),
the first frame is the outermost (the process name for perf, the entry point for SystemTap).
``unit`` says what a count is ("samples", "nanoseconds", or what the uploader said); ``total`` is
always the sum of the counts.

Derived views, all plain data ready for JSON:

- :func:`to_folded` - the folded text, sorted byte-wise exactly as stackcollapse-perf.pl sorts.
- :func:`tree` - the merged call tree as flat arrays (see its docstring for the layout).
- :func:`function_table` - per function: self and total, total counting a function once per stack
  even when it recurses.
- :func:`diff_profiles` - both trees merged, per node and per function, with the normalisation
  factor that scales the second profile to the first one's total.

Speed: the trie is built from the stacks sorted with ``;`` mapped to ``\\x00`` (the order of the
frame lists, so every subtree is contiguous), and each stack only walks the frames it does not
share with the previous one. Frame names are interned as small ints; everything after the build
is a pass over flat lists. Two 50,000-frame profiles diff in well under 200 ms (bench/).
"""

from __future__ import annotations

import gc
import gzip
import io
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import repeat
from operator import methodcaller
from typing import Any, NamedTuple

from .prune import keep_nodes, pruned_columns

ROOT_NAME = "all"  # what flamegraph.pl calls the root frame; it is not a frame of any stack
_ROOT_KEY = "\x00root"

JSON = dict[str, Any]


class ProfileError(ValueError):
    """The only exception raised for bad input.

    ``str(e)`` is ``"line 12: expected ..."`` when the line is known. ``too_large`` is true when a
    size cap was hit (the API answers 413 then, not 400).
    """

    def __init__(self, message: str, line: int | None = None, *, too_large: bool = False) -> None:
        self.message = message
        self.line = line
        self.too_large = too_large
        super().__init__(f"line {line}: {message}" if line is not None else message)

    def __reduce__(self) -> tuple[Any, ...]:
        # Keeps ``too_large`` across pickling (multiprocessing workers re-raise in the parent).
        return (_rebuild_error, (self.message, self.line, self.too_large))


def _rebuild_error(message: str, line: int | None, too_large: bool) -> ProfileError:
    return ProfileError(message, line, too_large=too_large)


@dataclass(eq=False)
class Profile:
    """Folded stacks with their unit; see the module docstring.

    ``lossy`` is true when the input could not carry every frame exactly (a flamegraph.pl SVG);
    ``tolerance`` then says how much may be missing, as a fraction of ``total``: a frame whose
    total is at least ``tolerance * total`` is present with its exact total. ``format`` is the
    detected input format ("folded", "perf-script", "svg", "stap", "dtrace").
    """

    stacks: dict[str, int]
    unit: str = "samples"
    event: str | None = None
    format: str = "folded"
    lossy: bool = False
    tolerance: float | None = None
    warnings: list[str] = field(default_factory=list)
    name: str = ""
    total: int = field(init=False)
    _frames: int | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        self.total = sum(self.stacks.values())

    @property
    def frames(self) -> int:
        """Number of nodes of the merged call tree (distinct frame paths), the root excluded."""
        if self._frames is None:
            with _no_gc():
                self._frames = _Trie.build([self.stacks]).size - 1
        return self._frames

    def summary(self) -> JSON:
        return {
            "name": self.name,
            "format": self.format,
            "unit": self.unit,
            "event": self.event,
            "total": self.total,
            "stacks": len(self.stacks),
            "frames": self.frames,
            "lossy": self.lossy,
            "tolerance": self.tolerance,
            "warnings": list(self.warnings),
        }


MAX_DEPTH = 4096
"""Frames kept per stack. Deeper stacks keep their MAX_DEPTH outermost frames followed by one
:data:`TRUNCATED` frame holding their count, with a warning stored with the profile. No profiler's
default goes near it (perf and bpftrace stop at 127 frames, async-profiler at 2048, Python's
recursion limit is 1000); without a cap one upload of a pathological stack would make every
view of the profile (tree, flame graph, function table) as deep as the attacker likes."""
TRUNCATED = "[truncated]"


def cap_depth(profile: Profile, max_depth: int = MAX_DEPTH) -> None:
    """Cut stacks deeper than ``max_depth`` frames in place (see :data:`MAX_DEPTH`).

    Linear in the size of the stacks: a stack is only split when its ``;`` count says it is too
    deep, and then only its first ``max_depth`` frames are split off.
    """
    # A stack that deep is at least 2 * max_depth - 1 characters long: most profiles stop here.
    if not profile.stacks or max(map(len, profile.stacks)) < 2 * max_depth - 1:
        return
    deep = [stack for stack in profile.stacks if stack.count(";") >= max_depth]
    if not deep:
        return
    stacks = profile.stacks
    deepest = 0
    for stack in deep:
        count = stacks.pop(stack)
        deepest = max(deepest, stack.count(";") + 1)
        head = stack.split(";", max_depth)
        head[max_depth] = TRUNCATED
        key = ";".join(head)
        stacks[key] = stacks.get(key, 0) + count
    profile._frames = None
    profile.warnings.append(
        f"{len(deep)} stacks are deeper than {max_depth} frames (the deepest has {deepest}): "
        f"each keeps its {max_depth} outermost frames, the rest is one {TRUNCATED} frame"
    )


def to_folded_gz(profile: Profile, compresslevel: int = 6) -> bytes:
    """:func:`to_folded`, gzip-compressed, written a few thousand lines at a time: the folded
    text of a 64 MB profile is never whole in memory (only its compressed form is)."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=compresslevel, mtime=0) as gz:
        batch: list[str] = []
        size = 0
        for stack, count in sorted(profile.stacks.items()):
            line = f"{stack} {count}\n"
            batch.append(line)
            size += len(line)
            if size >= 1 << 20:
                gz.write("".join(batch).encode("utf-8"))
                batch.clear()
                size = 0
        gz.write("".join(batch).encode("utf-8"))
    return out.getvalue()


def to_folded(profile: Profile) -> bytes:
    """``stack count\\n`` lines sorted byte-wise: byte for byte what stackcollapse-perf.pl prints.

    Python orders ``str`` by code point, which is the byte order of their UTF-8 encoding.
    """
    lines = [f"{stack} {count}\n" for stack, count in sorted(profile.stacks.items())]
    return "".join(lines).encode("utf-8")


MAX_NODES = 500_000
"""Nodes of a call tree (distinct call paths) a profile may have. A tree is stored and drawn as
flat arrays of about 25 bytes a node, so this keeps one tree under ~13 MB however the input is
shaped: stacks as deep as MAX_DEPTH that each start with a different root frame make a node per
frame, ~2 bytes of input each, and gzip inflates that shape ~600x. Real profiles stay far below
(a busy 64-core box's 30 s ``perf record -a -g`` folds to ~200,000 nodes). A diff merges two
trees, so it allows twice as many."""


def _too_many_nodes(limit: int) -> ProfileError:
    return ProfileError(
        f"the call tree has more than {limit:,} distinct call paths (frames), the limit per profile: "
        "fold fewer stacks (a shorter recording, or drop rare stacks) and upload again",
        too_large=True,
    )


class _Trie:
    """Merged call tree of one or more stack sets, as flat columns indexed by node id.

    Node 0 is the root. Ids are in depth-first pre-order with siblings sorted by name, so a
    node's subtree is the contiguous id range that follows it. ``self_[c][i]`` is the self count
    of node ``i`` in stack set ``c``; ``rec[i]`` (built on request) is 1 when node ``i``'s
    function already appears among its ancestors (a recursive call: not counted again in
    function totals).

    Columns are ``array`` objects (4 or 8 bytes a node, not a pointer plus an int object) and
    frame names are interned while building (one string per distinct name, not one per node):
    a node costs ~25 bytes, whatever the shape of the input.
    """

    __slots__ = ("name", "names", "parent", "rec", "self_", "size")

    def __init__(self, columns: int) -> None:
        self.names: list[str] = [ROOT_NAME]
        self.name = array("i", [0])
        self.parent = array("i", [-1])
        self.rec = bytearray(1)
        self.self_: list[array[int]] = [array("q", [0]) for _ in range(columns)]
        self.size = 1

    @classmethod
    def build(
        cls, stack_sets: list[Mapping[str, int]], *, recursion: bool = False, max_nodes: int = MAX_NODES
    ) -> _Trie:
        """The merged tree of the stack sets; ``recursion`` also fills ``rec`` (the function
        tables need it, the tree does not). More than ``max_nodes`` nodes raise
        :class:`ProfileError` (``too_large``) as soon as the count passes, before building on."""
        trie = cls(len(stack_sets))
        keys: Iterable[str] = stack_sets[0].keys()
        for more in stack_sets[1:]:
            keys = keys | more.keys()
        if any("\x00" in stack for stack in keys):
            # The order below needs names without NUL (importers never leave one).
            stack_sets = [_without_nul(stacks) for stacks in stack_sets]
            return cls.build(stack_sets, recursion=recursion, max_nodes=max_nodes)
        # ";" -> "\x00" sorts stacks as lists of frames ("a;b" < "a;b;c" < "a;b-x"): every
        # subtree is one contiguous run that starts with the first stack needing it, so nodes
        # created in this order are in pre-order, and a stack's own node never exists yet.
        order = sorted(keys, key=methodcaller("replace", ";", "\x00"))

        # Walk the stacks keeping the previous stack's path from the root down: for each depth,
        # the node id and where that frame's prefix ends in the previous stack. A stack's deepest
        # existing ancestor is on that path (subtrees are contiguous in this order); only the
        # frames after it are split off and appended. The path holds offsets, not prefix
        # strings: one string per depth would cost memory quadratic in the depth (a 100,000
        # frame stack took 23 GB). Names are interned to ids as they come; the root has id 0
        # under a key no frame can have (NUL never survives the importers), so a frame named
        # "all" is its own function.
        name_ids: dict[str, int] = {_ROOT_KEY: 0}
        intern = name_ids.setdefault
        t_name = trie.name
        t_parent = trie.parent
        t_rec = trie.rec
        leaf = array("i")  # the node of each stack of ``order``
        # The previous stack's path: prefix end offsets ("a;b;" -> 4) and node ids; with
        # ``recursion``, how often each name id occurs on it (a recursive call is a name already
        # on the path).
        path_end: list[int] = [0]
        path_node: list[int] = [0]
        on_path: dict[int, int] = {}
        # Bound methods: this loop runs once per frame of the tree.
        add_name, add_parent, add_rec = t_name.append, t_parent.append, t_rec.append
        add_end, add_node, seen_on_path = path_end.append, path_node.append, on_path.get
        prev = "\x00"  # no stack starts with it: the first stack goes under the root
        size = 1
        for stack in order:
            # The deepest prefix of the previous stack that this one starts with: the path is
            # monotone (a prefix that matches has every shorter one matching), so a binary search
            # over depths: O(len * log depth) time, one temporary copy at a time. The deepest one
            # is tried first, the usual case for neighbours in sorted order.
            depth = len(path_end) - 1
            # Under the whole previous stack ("prev;..."), tested without copying either string.
            if not (stack.startswith(prev) and stack.startswith(";", len(prev))):
                lo, hi = 0, depth - 1  # path_end[0] == 0 always matches
                while lo < hi:
                    mid = (lo + hi + 1) >> 1
                    if stack.startswith(prev[: path_end[mid]]):
                        lo = mid
                    else:
                        hi = mid - 1
                depth = lo
                if recursion:
                    for node in path_node[depth + 1 :]:
                        on_path[t_name[node]] -= 1
                del path_end[depth + 1 :]
                del path_node[depth + 1 :]
            base, parent = path_end[depth], path_node[depth]
            frames = stack[base:].split(";")
            if size + len(frames) > max_nodes + 1:
                raise _too_many_nodes(max_nodes)
            for fname in frames:
                nid = intern(fname, len(name_ids))
                add_name(nid)
                add_parent(parent)
                if recursion:
                    seen = seen_on_path(nid, 0)
                    add_rec(seen > 0)
                    on_path[nid] = seen + 1
                base += len(fname) + 1
                parent = size
                size += 1
                add_end(base)
                add_node(parent)
            prev = stack
            leaf.append(parent)
        del prev, path_end, path_node
        # dict order is insertion order: the ids are the positions.
        trie.names = list(name_ids)
        trie.names[0] = ROOT_NAME
        trie.size = size
        if not recursion:
            trie.rec = bytearray(size)
        for col, stacks in enumerate(stack_sets):
            col_self = trie.self_[col] = array("q", bytes(8 * size))
            # Scatter each stack's count to its node, in C: one node per stack, so set, not add.
            deque(map(col_self.__setitem__, leaf, map(stacks.get, order, repeat(0))), maxlen=0)
        return trie

    def totals(self) -> list[array[int]]:
        """Inclusive counts per node and column: one reverse pass (children have larger ids)."""
        cols = [array("q", c) for c in self.self_]
        parent = self.parent
        if len(cols) == 2:  # the diff: both columns in one pass
            a, b = cols
            for i in range(self.size - 1, 0, -1):
                p = parent[i]
                a[p] += a[i]
                b[p] += b[i]
        else:
            for t in cols:
                for i in range(self.size - 1, 0, -1):
                    t[parent[i]] += t[i]
        return cols

    def functions(self, totals: list[array[int]]) -> list[tuple[list[int], list[int]]]:
        """Per column, per name id: (self, total); a recursive occurrence adds to self but not to
        total. A diff's two columns are walked in one pass over the nodes."""
        n = len(self.names)
        out = [([0] * n, [0] * n) for _ in totals]
        if len(totals) == 2:
            (s0, t0), (s1, t1) = out
            for nid, rec, a_self, b_self, a_total, b_total in zip(
                self.name, self.rec, self.self_[0], self.self_[1], totals[0], totals[1]
            ):
                s0[nid] += a_self
                s1[nid] += b_self
                if not rec:
                    t0[nid] += a_total
                    t1[nid] += b_total
        else:
            for (fself, ftotal), self_col, total_col in zip(out, self.self_, totals):
                for nid, rec, s, t in zip(self.name, self.rec, self_col, total_col):
                    fself[nid] += s
                    if not rec:
                        ftotal[nid] += t
        for fself, ftotal in out:
            fself[0] = ftotal[0] = 0  # the root is not a function
        return out


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building: tens of thousands of new lists would
    trigger collections that walk every live object, for nothing (nothing built here is cyclic).
    It is restored as found; another thread at worst sees a delayed collection."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _without_nul(stacks: Mapping[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for stack, value in stacks.items():
        key = stack.replace("\x00", "\ufffd")
        out[key] = out.get(key, 0) + value
    return out


TREE_MAX_NODES = 50_000
"""Nodes a tree or diff response holds by default: a flame graph 1,200 pixels wide cannot show
more, and 50,000 nodes are ~1.5 MB of JSON. The rest is pruned, smallest first (see
:func:`tree`)."""
DIFF_MAX_FUNCTIONS = 5_000
"""Rows of a diff's function table sent by default, the largest changes first."""


def tree(profile: Profile, *, max_nodes: int = TREE_MAX_NODES, min_share: float = 0.0) -> JSON:
    """The merged call tree for the UI, compact and bounded::

        {"unit": "samples", "total": 1234,
         "names": ["all", "nginx", "epoll_wait", ...],       # each distinct frame name once
         "nodes": [[name_idx, self, total, parent_idx], ...],
         "pruned": {"nodes": 0, "total": 0, "groups": 0, "max_nodes": 50000, "min_total": 0}}

    ``nodes[0]`` is the root ("all", parent -1, total = the profile total). Nodes are in
    depth-first pre-order with siblings sorted by name (flamegraph.pl's order), so a node's
    children follow it and its subtree is a contiguous range; ``parent_idx`` always points back.

    At most ``max_nodes`` frames are sent, the largest totals first, and none under ``min_share``
    of the profile total: the children a node loses become one :data:`PRUNED` child after its
    others, whose self is their total, so every node's total still adds up. ``pruned`` says how
    many frames were left out, how many samples they held and the smallest total kept.
    """
    with _no_gc():
        trie = _Trie.build([profile.stacks])
    return tree_of(trie, unit=profile.unit, total=profile.total, max_nodes=max_nodes, min_share=min_share)


def tree_of(trie: _Trie, *, unit: str, total: int, max_nodes: int = TREE_MAX_NODES, min_share: float = 0.0) -> JSON:
    """:func:`tree` of an already built one-column trie (a stored call tree, see calltree.py)."""
    with _no_gc():
        totals = trie.totals()[0]
        keep, floor = keep_nodes(totals, max(1, max_nodes), min_share * total)
        # A PRUNED node sums its lost siblings' totals: that is its self too (it has no children).
        out = pruned_columns(trie.names, trie.name, trie.parent, keep, [trie.self_[0], totals], [1, 1])
        del totals, keep
        nodes = list(map(list, zip(out.name, *out.values, out.parent)))
    return {
        "unit": unit, "total": total, "names": out.names, "nodes": nodes,
        "pruned": {"nodes": out.pruned, "total": out.lost[1], "groups": out.groups, "max_nodes": max_nodes,
                   "min_total": floor if out.pruned else 0},
    }


class FunctionRow(NamedTuple):
    name: str
    self: int
    total: int


def function_table(profile: Profile) -> list[FunctionRow]:
    """Per function (frame name): self count and total count, sorted by total then self, desc.

    ``total`` counts each stack once per function even when the function recurses, so no total
    ever exceeds the profile total.
    """
    with _no_gc():
        trie = _Trie.build([profile.stacks], recursion=True)
    profile._frames = trie.size - 1  # the import needs both: one tree, not two
    return function_rows(trie)


def function_rows(trie: _Trie) -> list[FunctionRow]:
    """:func:`function_table` of a one-column trie built with ``recursion`` (or a stored one)."""
    with _no_gc():
        ((fself, ftotal),) = trie.functions(trie.totals())
    rows = [FunctionRow(trie.names[nid], fself[nid], t) for nid, t in enumerate(ftotal) if t]
    rows.sort(key=lambda r: (-r.total, -r.self, r.name))
    return rows


class FunctionDelta(NamedTuple):
    """One function in both profiles; ``*_other`` are raw counts, deltas are normalised."""

    name: str
    self_base: int
    total_base: int
    self_other: int
    total_other: int
    delta_self: float  # self_other * factor - self_base
    delta_total: float


@dataclass(eq=False)
class ProfileDiff:
    """Two profiles merged into one tree, with their counts side by side.

    ``factor = base_total / other_total`` scales ``other`` to ``base``'s total, so a delta of 0
    means "same share of the profile". Per node, the columns (one list each, indexed by node id,
    same pre-order as :func:`tree`): ``name`` (index into ``names``), ``parent``, ``self_base``,
    ``total_base``, ``self_other``, ``total_other`` (raw counts). Nodes only in ``other`` are
    there too (with base counts 0).
    """

    base_total: int
    other_total: int
    factor: float
    names: list[str]
    name: Sequence[int]
    parent: Sequence[int]
    self_base: Sequence[int]
    total_base: Sequence[int]
    self_other: Sequence[int]
    total_other: Sequence[int]
    # The function table as sorted tuples (-|delta_total|, -|delta_self|, name, self_base,
    # total_base, self_other, total_other): a view sends its first few thousand, so the
    # FunctionDelta of each of tens of thousands of functions is only built if asked for.
    ranked: list[tuple[float, float, str, int, int, int, int]]
    _functions: list[FunctionDelta] | None = field(default=None, repr=False)

    @property
    def functions(self) -> list[FunctionDelta]:
        """Per function, the largest normalised total change first."""
        if self._functions is None:
            factor = self.factor
            self._functions = [FunctionDelta(name, s0, t0, s1, t1, s1 * factor - s0, t1 * factor - t0)
                               for _, _, name, s0, t0, s1, t1 in self.ranked]
        return self._functions

    def path(self, node: int) -> str:
        """The folded path of a node ("nginx;epoll_wait"), the root being ""."""
        parts: list[str] = []
        while node > 0:
            parts.append(self.names[self.name[node]])
            node = self.parent[node]
        return ";".join(reversed(parts))

    def to_json(self, *, max_nodes: int = TREE_MAX_NODES, min_share: float = 0.0,
                max_functions: int = DIFF_MAX_FUNCTIONS) -> JSON:
        """``{"base_total", "other_total", "factor", "names", "nodes": [[name_idx, parent_idx,
        self_base, total_base, self_other, total_other], ...], "functions": [{...}, ...],
        "pruned": {...}, "functions_total": n}``.

        Bounded like :func:`tree`: a node's score is its share of the base plus its share of the
        other profile; at most ``max_nodes`` nodes are sent, none under ``min_share`` (of either
        total, summed), each node's lost children as one :data:`PRUNED` child; the
        ``max_functions`` largest changes of the function table (``functions_total`` says how
        many there are)."""
        bt, ot, factor = self.base_total or 1, self.other_total or 1, self.factor
        with _no_gc():
            score = [b / bt + o / ot for b, o in zip(self.total_base, self.total_other)]
            keep, floor = keep_nodes(score, max(1, max_nodes), min_share)
            del score
            # A PRUNED node's counts are its lost siblings' totals, self as total (no children).
            out = pruned_columns(self.names, self.name, self.parent, keep,
                                 [self.self_base, self.total_base, self.self_other, self.total_other], [1, 1, 3, 3])
            del keep
            nodes = list(map(list, zip(out.name, out.parent, *out.values)))
        return {
            "base_total": self.base_total,
            "other_total": self.other_total,
            "factor": self.factor,
            "names": out.names,
            "nodes": nodes,
            "pruned": {
                "nodes": out.pruned, "groups": out.groups, "total_base": out.lost[1],
                "total_other": out.lost[3], "max_nodes": max_nodes,
                "min_share": floor if out.pruned else 0,
            },
            "functions_total": len(self.ranked),
            "functions": [
                {"name": name, "self_base": s0, "total_base": t0, "self_other": s1, "total_other": t1,
                 "delta_self": s1 * factor - s0, "delta_total": t1 * factor - t0}
                for _, _, name, s0, t0, s1, t1 in self.ranked[:max_functions]
            ],
        }


def diff_profiles(base: Profile, other: Profile) -> ProfileDiff:
    """Merge ``base`` and ``other`` into one tree; see :class:`ProfileDiff`.

    Functions are sorted by the size of their normalised total delta, largest first.
    """
    with _no_gc():
        trie = _Trie.build([base.stacks, other.stacks], recursion=True, max_nodes=2 * MAX_NODES)
    return diff_of(trie, base_total=base.total, other_total=other.total)


def diff_of(trie: _Trie, *, base_total: int, other_total: int) -> ProfileDiff:
    """:func:`diff_profiles` of an already merged two-column trie with ``rec`` filled."""
    factor = base_total / other_total if other_total else 1.0
    with _no_gc():
        totals = trie.totals()
        (bself, btot), (oself, otot) = trie.functions(totals)
        # Largest normalised total change first; built from sorted plain tuples (no key function).
        ranked = sorted(
            (-abs(t1 * factor - t0), -abs(s1 * factor - s0), name, s0, t0, s1, t1)
            for name, s0, t0, s1, t1 in zip(trie.names, bself, btot, oself, otot)
            if t0 or t1
        )
    tb, to = totals
    return ProfileDiff(
        base_total=base_total,
        other_total=other_total,
        factor=factor,
        names=trie.names,
        name=trie.name,
        parent=trie.parent,
        self_base=trie.self_[0],
        total_base=tb,
        self_other=trie.self_[1],
        total_other=to,
        ranked=ranked,
    )


def merge_counts(into: dict[str, int], items: Iterable[tuple[str, int]]) -> None:
    """Add counts into a stacks dict (identical stacks are one entry)."""
    get = into.get
    for stack, count in items:
        into[stack] = get(stack, 0) + count
