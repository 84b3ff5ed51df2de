"""``perflab parse KIND [FILE|-]``: one tool output in, one JSON document out.

Exit 0 with the JSON on stdout (indented on a terminal, compact when piped); exit 2 with one line on stderr naming the problem (and the line)
when the input is not that kind, is binary, or cannot be read. ``KIND`` may be ``auto``. Gzip
input is accepted. Large strace logs are grouped on all CPUs (the shell pipeline it replaces uses
several too).
"""

from __future__ import annotations

import json
import mmap
import os
import sys
from typing import Any, BinaryIO

from . import KINDS, ParseError, parse, read_text, strace

USAGE = f"usage: perflab parse KIND [FILE|-]   (KIND: auto, {', '.join(KINDS)})"

_PARALLEL_MIN_BYTES = 16 * 1024 * 1024


def _read(path: str, stdin: BinaryIO) -> bytes:
    if path == "-":
        return stdin.read()
    with open(path, "rb") as f:
        return f.read()


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _strace_file(path: str) -> dict[str, Any] | None:
    """strace.parse for a plain file, fast: the file is mapped, not copied, and grouped as
    UTF-8 bytes by one forked worker per CPU. None means: take the ordinary path."""
    with open(path, "rb") as f:
        head = f.read(65536)
        if not head or head[:2] == b"\x1f\x8b":
            return None
        read_text(head[: head.rfind(b"\n") + 1] or head)  # binary data is refused here
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return _strace_grouped(buf, path)
    finally:
        buf.close()


def _strace_grouped(buf: Any, path: str) -> dict[str, Any]:
    n = len(buf)
    jobs = min(_cpus(), 8) if n >= _PARALLEL_MIN_BYTES and hasattr(os, "fork") else 1
    bounds = [0]
    for j in range(1, jobs):
        cut = buf.find(b"\n", n * j // jobs)
        bounds.append(n if cut < 0 else cut + 1)
    bounds.append(n)
    children: list[tuple[int, int]] = []
    if jobs > 1:
        import pickle  # only the parallel path needs it
    try:
        for j in range(1, jobs):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child
                code = 0
                try:
                    os.close(r)
                    counted = strace.group_lines(
                        strace.chunks(buf, start=bounds[j], stop=bounds[j + 1])
                    )
                    with os.fdopen(w, "wb") as out:
                        pickle.dump(counted, out, protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException:  # noqa: BLE001 - a forked child must never return to the caller
                    code = 1
                os._exit(code)
            os.close(w)
            children.append((pid, r))
        groups, nlines = strace.group_lines(
            strace.chunks(buf, start=bounds[0], stop=bounds[1])
        )
        for pid, r in children:
            with os.fdopen(r, "rb") as f:
                payload = f.read()
            _, status = os.waitpid(pid, 0)
            if status != 0 or not payload:
                raise ParseError("a worker failed while reading the strace log", None)
            more, more_lines = pickle.loads(payload)
            groups.update(more)
            nlines += more_lines
        children = []
    finally:
        for pid, r in children:
            os.close(r)
            os.waitpid(pid, 0)

    def lines() -> list[str]:
        from ._common import split_lines

        with open(path, "rb") as f:
            return split_lines(read_text(f.read()))

    result: dict[str, Any] = strace.summarize(groups, nlines, lines)
    return result


def run(kind: str, data: bytes) -> dict[str, Any]:
    """Parse raw file bytes as ``kind`` (what ``main`` prints).

    ``auto`` on a text holding several tools' outputs (wrk's summary, then a strace -c table)
    answers ``{"kind": "parts", "parts": [{"kind", "start_line", "end_line", "preview",
    "warnings", "result"}]}`` (transcript parts also "command", "prompt", "interval_s"): every part,
    unrecognised ones included (``kind`` null, no result),
    instead of the one kind that would win detection. A single tool's output is parsed as before.
    """
    text = read_text(data)
    if kind != "auto":
        return parse(kind, text)
    from .split import split

    parts = split(text)
    if len(parts) <= 1:
        return parse(kind, text)
    out = []
    for part in parts:
        entry: dict[str, Any] = {k: part[k] for k in ("kind", "start_line", "end_line", "preview", "warnings")}
        # a transcript part: the command typed, and what it says (interval, parse options)
        entry.update({k: part[k] for k in ("command", "prompt", "interval_s") if k in part})
        if part["kind"] is not None:
            try:
                entry["result"] = parse(part["kind"], part["text"], **(part.get("options") or {}))
            except ParseError as e:
                line = "" if e.line is None else f"line {e.line + part['start_line'] - 1}: "
                entry["error"] = f"{line}{e.message}"
        out.append(entry)
    return {"kind": "parts", "parts": out}


def main(argv: list[str] | None = None, stdin: BinaryIO | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["parse"]:
        args = args[1:]
    if not args or args[0] in ("-h", "--help") or len(args) > 2:
        print(USAGE, file=sys.stderr if not args or len(args) > 2 else sys.stdout)
        return 2 if not args or len(args) > 2 else 0
    kind = args[0]
    path = args[1] if len(args) == 2 else "-"
    if kind != "auto" and kind not in KINDS:
        print(f"perflab parse: unknown kind {kind!r}; {USAGE}", file=sys.stderr)
        return 2
    try:
        result: dict[str, Any] | None = None
        if kind == "strace" and path != "-" and os.path.isfile(path):
            result = _strace_file(path)
        if result is None:
            result = run(
                kind, _read(path, stdin if stdin is not None else sys.stdin.buffer)
            )
    except OSError as e:
        print(f"perflab parse: cannot read {path}: {e.strerror or e}", file=sys.stderr)
        return 2
    except ParseError as e:
        where = "" if path == "-" else f"{path}: "
        print(f"perflab parse {kind}: {where}{e}", file=sys.stderr)
        return 2
    # Indented for people at a terminal; compact when piped (jq, files): a million samples
    # indented would be hundreds of megabytes of spaces, and only compact output takes json's
    # C encoder.
    if sys.stdout.isatty():
        text = json.dumps(result, ensure_ascii=False, allow_nan=False, indent=2)
    else:
        text = json.dumps(
            result, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # `perflab parse ... | head` is fine; don't let the interpreter complain at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
