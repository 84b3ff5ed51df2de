"""Bounding a tree or diff view: which nodes it keeps, and the kept nodes as output columns.

Both run on every large view (a 100,000-node merged tree), so they work on whole columns with
C-level passes (``compress``, ``map``, ``sorted``, ``bytearray.count``) and keep the per-node
Python loop to one over the kept nodes (for the pre-order with the [pruned] groups in place).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import gt
from typing import Any

PRUNED = "[pruned]"

_FLIP = bytes([1, 0]) + bytes(254)  # bytearray.translate: 0 <-> 1


def keep_nodes(score: Sequence[float], max_nodes: int, min_score: float) -> tuple[bytearray, float]:
    """Which nodes a bounded view keeps: those scoring at least ``min_score``, and at most
    ``max_nodes`` of them, the highest scores first (ties in pre-order). A node never scores
    above its parent, so what is kept is always a tree from the root down. Also returns the
    lowest score kept."""
    size = len(score)
    if size <= max_nodes and min_score <= 0:
        return bytearray(b"\x01") * size, 0
    floor = min_score
    if size > max_nodes:
        # The max_nodes-th largest score: a C sort (heapq.nlargest of 50,000 is a Python heap).
        floor = max(floor, sorted(score, reverse=True)[max_nodes - 1])
    keep = bytearray(map(gt, score, repeat(floor)))
    keep[0] = 1
    room = max_nodes - keep.count(1)
    # Then the nodes scoring exactly the floor, in pre-order, while there is room.
    i, index = 1, score.index
    while room > 0:
        try:
            i = index(floor, i)
        except ValueError:
            break
        keep[i] = 1
        room -= 1
        i += 1
    return keep, floor


@dataclass
class Pruned:
    """The kept nodes in pre-order, each kept node that lost children followed (after its kept
    subtree) by one :data:`PRUNED` child standing for them, as columns of new indices: ``name``
    (into ``names``), ``parent``, and ``values``, one per column asked for."""

    names: list[str]
    name: list[int]
    parent: list[int]
    values: list[list[int]]
    pruned: int  # nodes left out
    groups: int  # PRUNED nodes
    pruned_name: int  # the index of PRUNED in ``names`` (-1: none)
    lost: list[int]  # per column, the sum of its PRUNED nodes' values


def pruned_columns(names: list[str], name: Sequence[int], parent: Sequence[int], keep: bytearray,
                   columns: list[Sequence[int]], pruned_as: list[int]) -> Pruned:
    """See :class:`Pruned`. A PRUNED node's value in column ``c`` is the sum, over the children
    it stands for, of column ``pruned_as[c]`` (their totals: it has no children of its own)."""
    size = len(name)
    summed = sorted(set(pruned_as))
    # The lost children's sums, one slot per kept parent, in the order its first lost child comes.
    slot: dict[int, int] = {}
    lost_parent = array("i")
    sums: dict[int, list[int]] = {c: [] for c in summed}
    left_out = list(compress(range(size), keep.translate(_FLIP)))
    pruned = len(left_out)
    # Only the highest nodes left out count (their parent is kept): their totals hold the rest.
    for i in compress(left_out, map(keep.__getitem__, map(parent.__getitem__, left_out))):
        p = parent[i]
        k = slot.get(p)
        if k is None:
            slot[p] = len(lost_parent)
            lost_parent.append(p)
            for c in summed:
                sums[c].append(columns[c][i])
        else:
            for c in summed:
                sums[c][k] += columns[c][i]
    # The output order: old ids, a PRUNED node as size + its slot, emitted when its parent's kept
    # subtree closes (the innermost first).
    order: list[int]
    if not pruned:
        order = list(range(size))
    else:
        order = []
        append = order.append
        path = [-1]
        for i in compress(range(size), keep):
            p = parent[i]
            while path[-1] != p:
                k = slot.get(path.pop())
                if k is not None:
                    append(size + k)
            append(i)
            path.append(i)
        while len(path) > 1:
            k = slot.get(path.pop())
            if k is not None:
                append(size + k)
    # PRUNED's name is a name id of its own (a frame may be called "[pruned]" too).
    ext_name = array("i", name)
    ext_name.extend(repeat(len(names), len(lost_parent)))
    ext_parent = array("i", parent)
    ext_parent.extend(lost_parent)
    name_ids = list(map(ext_name.__getitem__, order))
    used = {old: k for k, old in enumerate(dict.fromkeys(name_ids))}  # in order of first use
    new_id = dict(zip(order, range(len(order))))
    new_id[-1] = -1
    values = []
    for c, col in enumerate(columns):
        ext: list[Any] = list(col)
        ext.extend(sums[pruned_as[c]])
        values.append(list(map(ext.__getitem__, order)))
    return Pruned(
        names=[names[old] if old < len(names) else PRUNED for old in used],
        name=list(map(used.__getitem__, name_ids)),
        parent=list(map(new_id.__getitem__, map(ext_parent.__getitem__, order))),
        values=values, pruned=pruned, groups=len(lost_parent), pruned_name=used.get(len(names), -1),
        lost=[sum(sums[c]) for c in pruned_as],
    )
