"""A profile's call tree in its stored form: built once at import, read by every view.

:class:`CallTree` is the merged tree of a profile's stacks as the flat columns the trie already
uses (model.py's ``_Trie``): per node in pre-order, the frame name's id, the parent, the self
count and whether the node's function already appears among its ancestors. :meth:`CallTree.encode`
packs it as ``MAGIC`` followed by one zlib stream of a fixed header, the distinct names once
(NUL-separated UTF-8: no frame name holds a NUL) and the columns as little-endian arrays, about
17 bytes a node before compression. :func:`decode` reads it back with a handful of C-level copies:
no text to split, no stack to sort, so a view of a stored profile costs its tree, not its folded
text (a 64 MB folded profile of deep stacks is a few thousand nodes).

:func:`diff_trees` merges two stored trees directly, a merge-join of sorted siblings, linear in
their nodes (the stacks are never rebuilt).
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from dataclasses import dataclass

from .model import (
    JSON,
    MAX_NODES,
    ROOT_NAME,
    FunctionRow,
    Profile,
    ProfileDiff,
    ProfileError,
    _no_gc,
    _Trie,
    diff_of,
    function_rows,
    tree_of,
)

MAGIC = b"PLCT1\n"
_HEADER = struct.Struct("<IIQQ")  # nodes, names, bytes of names, total
_BIG_ENDIAN = sys.byteorder == "big"


@dataclass(eq=False)
class CallTree:
    """One profile's merged call tree; see the module docstring. ``total`` is the profile total."""

    names: list[str]
    name: array[int]
    parent: array[int]
    self_: array[int]
    rec: bytearray
    total: int

    @property
    def size(self) -> int:
        return len(self.name)

    def trie(self) -> _Trie:
        trie = _Trie(1)
        trie.names, trie.name, trie.parent, trie.rec = self.names, self.name, self.parent, self.rec
        trie.self_ = [self.self_]
        trie.size = self.size
        return trie

    def view(self, *, unit: str, max_nodes: int, min_share: float = 0.0) -> JSON:
        """The bounded tree of :func:`model.tree`."""
        return tree_of(self.trie(), unit=unit, total=self.total, max_nodes=max_nodes, min_share=min_share)

    def function_table(self) -> list[FunctionRow]:
        return function_rows(self.trie())

    def encode(self, level: int = 6) -> bytes:
        names = "\x00".join(self.names).encode("utf-8")
        cols = [array("i", self.name), array("i", self.parent), array("q", self.self_)]
        if _BIG_ENDIAN:
            for col in cols:
                col.byteswap()
        z = zlib.compressobj(level)
        parts = [MAGIC, z.compress(_HEADER.pack(self.size, len(self.names), len(names), self.total)), z.compress(names)]
        parts += [z.compress(memoryview(col).cast("B")) for col in cols]
        parts += [z.compress(self.rec), z.flush()]
        return b"".join(parts)


def build(profile: Profile) -> CallTree:
    """The call tree of a parsed profile (raises :class:`ProfileError` past MAX_NODES)."""
    with _no_gc():
        trie = _Trie.build([profile.stacks], recursion=True)
    profile._frames = trie.size - 1
    return CallTree(trie.names, trie.name, trie.parent, trie.self_[0], trie.rec, profile.total)


def decode(data: bytes) -> CallTree:
    """Read back what :meth:`CallTree.encode` wrote; anything else is a :class:`ProfileError`."""
    if not data.startswith(MAGIC):
        raise ProfileError("not a stored call tree (unknown format)")
    try:
        raw = zlib.decompress(memoryview(data)[len(MAGIC):])
    except zlib.error as exc:
        raise ProfileError(f"stored call tree is corrupt: {exc}") from None
    if len(raw) < _HEADER.size:
        raise ProfileError("stored call tree is truncated")
    nodes, n_names, names_len, total = _HEADER.unpack_from(raw)
    pos = _HEADER.size
    if len(raw) != pos + names_len + nodes * 17:
        raise ProfileError("stored call tree is truncated")
    names = raw[pos : pos + names_len].decode("utf-8").split("\x00")
    pos += names_len
    cols: list[array[int]] = []
    for code, width in (("i", 4), ("i", 4), ("q", 8)):
        col = array(code)
        col.frombytes(raw[pos : pos + nodes * width])
        if _BIG_ENDIAN:
            col.byteswap()
        cols.append(col)
        pos += nodes * width
    rec = bytearray(raw[pos:])
    del raw
    name, parent, self_ = cols
    if (len(names) != n_names or not nodes or parent[0] != -1 or max(name) >= n_names or min(name) < 0
            or (nodes > 1 and (min(parent[1:]) < 0 or max(parent) >= nodes))):
        raise ProfileError("stored call tree is inconsistent")
    names[0] = ROOT_NAME
    return CallTree(names, name, parent, self_, rec, total)


def _ends(parent: array[int]) -> array[int]:
    """One past the last node of each node's subtree (pre-order: a subtree is a contiguous range)."""
    size = len(parent)
    end = array("i", range(1, size + 1))
    for i in range(size - 1, 0, -1):
        p = parent[i]
        e = end[i]
        if e > end[p]:  # noqa: PLR1730 - not max(): a call per node is a fifth of this pass
            end[p] = e
    return end


def merge(a: CallTree, b: CallTree) -> _Trie:
    """The two trees as one two-column trie (``rec`` filled), in the pre-order, sibling order and
    node ids that building it from both profiles' stacks gives: siblings are sorted by name
    (model.py), so each node's children are merged like two sorted lists. A subtree only one side
    has is copied in bulk."""
    with _no_gc():
        end_a, end_b = _ends(a.parent), _ends(b.parent)
        # a's name ids stay, b's are mapped. Id 0 is the root on both sides, never a frame (a
        # frame may be named "all" too: it has its own id).
        names = list(a.names)
        ids = {n: i for i, n in enumerate(names) if i}
        # (A tree's names are distinct.)
        new = [n for n in b.names[1:] if n not in ids]
        ids.update(zip(new, range(len(names), len(names) + len(new))))
        names += new
        map_b = array("i", [0])
        map_b.extend(map(ids.__getitem__, b.names[1:]))
        a_names, b_names = a.names, b.names
        a_name, b_name, a_parent, b_parent = a.name, b.name, a.parent, b.parent
        a_self, b_self, a_rec, b_rec = a.self_, b.self_, a.rec, b.rec
        name, parent = array("i"), array("i")
        s0, s1 = array("q"), array("q")
        rec = bytearray()
        # (x, y, parent in the merged tree, hi): a node both sides have (hi unused), or a run of
        # sibling subtrees only one side has, [x, hi) of a's nodes (y = -1) or [y, hi) of b's
        # (x = -1): contiguous in pre-order, so copied in one go (a profile's thousands of root
        # frames the other lacks are one copy, not thousands).
        stack: list[tuple[int, int, int, int]] = [(0, 0, -1, 0)]
        pop, push = stack.pop, stack.extend
        while stack:
            x, y, p, hi = pop()
            me = len(name)
            if y < 0 or x < 0:
                if y < 0:
                    lo, src_parent, src_self, src_rec = x, a_parent, a_self, a_rec
                    name.extend(a_name[lo:hi])
                else:
                    lo, src_parent, src_self, src_rec = y, b_parent, b_self, b_rec
                    name.extend([map_b[n] for n in b_name[lo:hi]])
                # The run's roots hang from ``up`` on their side, from ``p`` here; the rest shift.
                shift, up = me - lo, src_parent[lo]
                parent.extend([q + shift if q != up else p for q in src_parent[lo:hi]])
                zeros = array("q", bytes(8 * (hi - lo)))
                (s0 if y < 0 else s1).extend(src_self[lo:hi])
                (s1 if y < 0 else s0).extend(zeros)
                rec.extend(src_rec[lo:hi])
                continue
            name.append(a_name[x])
            parent.append(p)
            s0.append(a_self[x])
            s1.append(b_self[y])
            rec.append(a_rec[x])
            # Children of both, merged by name (each side's are sorted), pushed last-first; next
            # siblings only one side has extend the run before them.
            kids: list[tuple[int, int, int, int]] = []
            i, i_end, j, j_end = x + 1, end_a[x], y + 1, end_b[y]
            while i < i_end and j < j_end:
                na, nb = a_names[a_name[i]], b_names[b_name[j]]
                if na == nb:
                    kids.append((i, j, me, 0))
                    i, j = end_a[i], end_b[j]
                elif na < nb:
                    k = end_a[i]
                    if kids and kids[-1][1] < 0:
                        kids[-1] = (kids[-1][0], -1, me, k)
                    else:
                        kids.append((i, -1, me, k))
                    i = k
                else:
                    k = end_b[j]
                    if kids and kids[-1][0] < 0:
                        kids[-1] = (-1, kids[-1][1], me, k)
                    else:
                        kids.append((-1, j, me, k))
                    j = k
            if i < i_end:
                if kids and kids[-1][1] < 0:
                    kids[-1] = (kids[-1][0], -1, me, i_end)
                else:
                    kids.append((i, -1, me, i_end))
            if j < j_end:
                if kids and kids[-1][0] < 0:
                    kids[-1] = (-1, kids[-1][1], me, j_end)
                else:
                    kids.append((-1, j, me, j_end))
            kids.reverse()
            push(kids)
        trie = _Trie(0)
        trie.names, trie.name, trie.parent, trie.rec = names, name, parent, rec
        trie.self_ = [s0, s1]
        trie.size = len(name)
    if trie.size > 2 * MAX_NODES + 1:  # cannot happen for trees within the limit; a corrupt one
        raise ProfileError("the merged call tree is larger than two profiles can make", too_large=True)
    return trie


def diff_trees(base: CallTree, other: CallTree) -> ProfileDiff:
    """:func:`model.diff_profiles` of two stored trees."""
    return diff_of(merge(base, other), base_total=base.total, other_total=other.total)
