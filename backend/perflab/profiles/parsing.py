"""Parsing an upload into what a profile stores, in a small pool of processes (not request threads).

A profile parse is seconds of CPU in C calls that hold the interpreter lock (a regex split of the
whole text, sorts of hundreds of thousands of stacks) and two to three times its input in memory.
Run in a request thread it stalled every other request of the process (/api/health took up to 3 s
under a 64 MB upload) and its memory stayed with the server. So the upload route streams the body
to artifact storage, and a pool process (at most ``PERFLAB_PROFILE_PARSERS`` at once, a fresh
process per parse forked from a preloaded server, so its memory goes back to the system when it
ends) reads the stored object, parses it and hands back only what is stored: the row's fields, the
folded stacks and the call tree compressed, and the function table as a COPY file on disk.

``PERFLAB_PROFILE_PARSERS=0`` parses in the calling thread instead (tests and tools that import
in-process).
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import pickle
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from perflab.config import Settings, get_settings
from perflab.parsers import profiles as parser

log = logging.getLogger(__name__)

# Function rows stored per profile, by total and by self: the most GET .../functions returns.
MAX_STORED_FUNCTIONS = 100_000

T = TypeVar("T")


@dataclass
class Parsed:
    """What one upload stores besides its original: small, sent back from the pool process."""

    format: str
    unit: str
    event: str | None
    total: int
    frames: int
    stacks: int
    lossy: bool
    tolerance: float | None
    warnings: list[str]
    folded_gz: bytes
    tree_z: bytes
    # The function table, in COPY text format, in this file (may be absent when there is none).
    functions_path: str
    functions: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _copy_text(value: str) -> str:
    # COPY's text format: backslash, tab, newline and carriage return are escaped.
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        value = value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return value


def _write_functions(path: str, table: Sequence[parser.FunctionRow], *, profile_id: uuid.UUID,
                     run_id: uuid.UUID) -> int:
    """The rows a read can ask for: the MAX_STORED_FUNCTIONS first by total (``rank`` keeps their
    order) and by self, as `COPY profile_function (profile_id, rank, run_id, name, self_value,
    total_value)` text, written a thousand rows at a time."""
    keep: Sequence[int] = range(len(table))
    if len(table) > MAX_STORED_FUNCTIONS:
        by_self = sorted(range(len(table)), key=lambda i: (-table[i].self, i))[:MAX_STORED_FUNCTIONS]
        keep = sorted(set(range(MAX_STORED_FUNCTIONS)) | set(by_self))
    pid, rid = str(profile_id), str(run_id)
    with open(path, "w", encoding="utf-8") as out:
        batch: list[str] = []
        for rank in keep:
            f = table[rank]
            batch.append(f"{pid}\t{rank}\t{rid}\t{_copy_text(f.name)}\t{f.self}\t{f.total}\n")
            if len(batch) >= 1000:
                out.write("".join(batch))
                batch.clear()
        out.write("".join(batch))
    return len(keep)


def parse_bytes(data: bytes, *, name: str, unit: str | None, max_bytes: int, profile_id: uuid.UUID,
                run_id: uuid.UUID, functions_path: str) -> Parsed:
    """Parse an upload (any format, gzip or not); raises parser.ProfileError on bad input."""
    profile = parser.load_profile(data, name=name, unit=unit, max_bytes=max_bytes)
    del data
    # One tree for the function table, the frame count and the stored views (raises past the node
    # limit: a 413 like any size cap).
    tree = parser.build_call_tree(profile)
    functions = _write_functions(functions_path, tree.function_table(), profile_id=profile_id, run_id=run_id)
    return Parsed(
        format=profile.format, unit=profile.unit, event=profile.event[:200] if profile.event else None,
        total=profile.total, frames=profile.frames, stacks=len(profile.stacks), lossy=profile.lossy,
        tolerance=profile.tolerance, warnings=profile.warnings[:50], folded_gz=parser.to_folded_gz(profile),
        tree_z=tree.encode(), functions_path=functions_path, functions=functions,
    )


def parse_stored(settings: Settings, key: str, **kwargs: Any) -> Parsed:
    """:func:`parse_bytes` of a stored object (run in a pool process: it reads storage itself)."""
    from perflab.artifacts.storage import storage_for

    return parse_bytes(storage_for(settings).get(key), **kwargs)


def derive_tree(folded_gz: bytes, *, unit: str, name: str) -> bytes:
    """The stored call tree of a profile stored before call trees were (read back from its folded
    stacks, once)."""
    profile = parser.load_folded(folded_gz, unit=unit, name=name)
    return parser.build_call_tree(profile).encode()


def tree_view(tree_z: bytes, *, unit: str, max_nodes: int, min_share: float) -> bytes:
    """The JSON body of GET .../tree from a stored call tree."""
    view = parser.decode_call_tree(tree_z).view(unit=unit, max_nodes=max_nodes, min_share=min_share)
    return _json(view)


def diff_view(base_z: bytes, other_z: bytes, *, unit: str, max_nodes: int, min_share: float) -> bytes:
    """The JSON body of GET .../diff from two stored call trees."""
    merged = parser.diff_trees(parser.decode_call_tree(base_z), parser.decode_call_tree(other_z))
    result = merged.to_json(max_nodes=max_nodes, min_share=min_share)
    result["unit"] = unit
    return _json(result)


def call_view(*, fn: Callable[..., bytes], blobs: list[bytes], kwargs: dict[str, Any]) -> bytes:
    """``fn(*blobs, **kwargs)``: a large view, as a parser process runs it. It lives here, not in the
    service: a child imports the module of the function it is handed, and perflab.profiles.service
    (the ORM, artifacts, settings) is not preloaded in the fork server: 0.7 s of imports in every
    view's process, more than the view itself (bench/profile_view_bench.py)."""
    return bytes(fn(*blobs, **kwargs))


def _json(doc: dict[str, Any]) -> bytes:
    # As Starlette's JSONResponse renders it.
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode("utf-8")


# Stored trees up to this size (compressed; ~10,000 nodes) are viewed in the request's thread: a
# pool process would cost more than the view (tens of ms); larger ones go to the pool like uploads,
# their seconds of CPU off the serving process.
INLINE_VIEW_BYTES = 64 * 1024


# -- the pool ------------------------------------------------------------------------------------

# At most profile_parsers parses at once: one thread each, waiting (without the interpreter lock) on
# its child process; more calls wait in the queue, holding no thread.
_threads: ThreadPoolExecutor | None = None
_lock = threading.Lock()
_context: Any = None


# A profile parse is niced: on a small shared machine its seconds of CPU yield to the server's own
# threads. (Imports are not: their process holds no lock the server needs, and /api/health stayed
# under 0.1 s beside an un-niced 8 MB import on a loaded 2-core machine.)
NICENESS = 10


class ParserDied(RuntimeError):
    """The parser process died mid-parse (killed, out of memory): the caller answers 503."""


# What the fork server imports once for every parser process. A child imports the module of each
# function it is handed (by name, as pickle does): what it runs must live in one of these, or every
# parse or view pays that module's imports again.
# perflab.imports.job: imports run here too (its imports bring the models and every parser).
PRELOAD = ("perflab.profiles.parsing", "perflab.artifacts.storage", "perflab.imports.job",
           "perflab.imports.forkserver")


def _mp_context() -> Any:
    global _context
    if _context is None:
        # forkserver: a clean single-threaded process imports the parsers once and forks a fresh
        # child per parse (forking this multi-threaded server itself is unsafe; spawning a new
        # interpreter per parse costs 1.4 s of imports). A child per parse: its memory goes back to
        # the system when it exits. (Not ProcessPoolExecutor(max_tasks_per_child=1): on Python 3.11
        # it can stop replacing its workers and leave a submitted parse waiting for ever.)
        ctx = multiprocessing.get_context("forkserver")
        preload = list(PRELOAD)
        # Each child runs the server's main module again as __mp_main__ (`python -m perflab.cli
        # serve`: perflab.cli): imported once in the fork server, that costs the child nothing.
        main_name = getattr(getattr(sys.modules.get("__main__"), "__spec__", None), "name", None)
        if main_name and main_name != "__main__" and not main_name.endswith(".__main__"):
            preload.append(main_name)
        ctx.set_forkserver_preload(preload)
        _context = ctx
    return _context


def _child(conn: Any, fn: Callable[..., Any], kwargs: dict[str, Any], niceness: int) -> None:
    try:
        if niceness:
            os.nice(niceness)
    except OSError:  # pragma: no cover - not permitted: keep the default priority
        pass
    try:
        reply: tuple[bool, Any] = (True, fn(**kwargs))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the request
        reply = (False, exc)
    try:
        conn.send(reply)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:  # an exception that does not pickle
        conn.send((False, RuntimeError(f"{type(reply[1]).__name__}: {exc}")))
    conn.close()


def _fork_server_gone() -> bool:
    """Whether the fork server was started and has died (killed, out of memory). Read from /proc, not
    waited for: multiprocessing reaps it itself, and starts a new one, at the next start it sees it dead."""
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if not isinstance(pid, int):
        return False
    try:
        import psutil  # type: ignore[import-untyped]

        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


def _in_child(fn: Callable[..., T], kwargs: dict[str, Any], niceness: int = NICENESS, *, again: bool = True) -> T:
    ctx = _mp_context()
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, kwargs, niceness), daemon=True)
    started = False
    try:
        try:
            # Its arguments (a view's stored trees: hundreds of KB) are written to it as it starts:
            # killed before it has read them all, the write breaks here (it was a 500).
            proc.start()
            started = True
        finally:
            send.close()
        ok, value = recv.recv()
    except (EOFError, OSError) as exc:
        if started:
            proc.join(5)
        elif again and _fork_server_gone():
            # The fork server died just before (its SIGKILL not yet seen when this start asked for it):
            # the next start launches a new one, and this parse never began.
            recv.close()
            return _in_child(fn, kwargs, niceness, again=False)
        how = f"exit code {proc.exitcode}" if started else f"as it started: {type(exc).__name__}"
        raise ParserDied(f"the parser process died ({how}; out of memory?)") from None
    finally:
        recv.close()
        if started:
            proc.join(10)
            if proc.is_alive():  # pragma: no cover - it has answered; it must not linger
                proc.kill()
                proc.join()
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def uses_processes() -> bool:
    """Whether :func:`run` runs in a parser process (else in a thread of this one)."""
    return get_settings().profile_parsers > 0


def _pool() -> ThreadPoolExecutor:
    global _threads
    with _lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(max_workers=get_settings().profile_parsers,
                                          thread_name_prefix="profile-parser")
        return _threads


def _noop() -> None:
    return None


def warm() -> None:
    """Start the fork server now, in the background: the first upload or import would otherwise wait
    for its imports (~1.5 s)."""
    if uses_processes():
        _pool().submit(_in_child, _noop, {})


def shutdown() -> None:
    """Stop taking parses (server shutdown); one in progress ends with its process."""
    global _threads
    with _lock:
        pool, _threads = _threads, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


async def run(fn: Callable[..., T], /, *, niceness: int = NICENESS, **kwargs: Any) -> T:
    """``fn(**kwargs)`` in a parser process (in a thread when the pool is off), awaited without
    holding a thread while it waits its turn. ``niceness``: how far the process yields the CPU."""
    if not uses_processes():
        return await asyncio.to_thread(fn, **kwargs)
    return await asyncio.wrap_future(_pool().submit(_in_child, fn, kwargs, niceness))


def run_blocking(fn: Callable[..., T], /, **kwargs: Any) -> T:
    """:func:`run` for a sync route: the calling thread waits (without the interpreter lock)."""
    if not uses_processes():
        return fn(**kwargs)
    return _pool().submit(_in_child, fn, kwargs).result()


def remove(path: str | Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
