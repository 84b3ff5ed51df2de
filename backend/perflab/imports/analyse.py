"""What an import holds, before anything is stored: each file (or each part of a paste) read by its kind,
or kept as an attachment with a note saying why it was not read.

Files are read together because they inform each other: an nginx.conf names the ``log_format`` its
``access_log`` writes, which is how an access log in a custom format is read. Preview and import run
this same analysis, so what the preview says is what the import does.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from perflab import parsers
from perflab.errors import BadInput, PayloadTooLarge, Unprocessable
from perflab.imports.schemas import ImportFile
from perflab.imports.streaming import StreamRead
from perflab.ingest import pipeline
from perflab.parsers import host_facts
from perflab.parsers.split import one_output, split
from perflab.parsers.transcript import prompt

MAX_TEXT_BYTES = 256 * 1024 * 1024
# Configs up to this size get the parsed form stored with their snapshot (artifacts.service.MAX_SNAPSHOT_BYTES;
# in characters, a bound at least as large).
MAX_SNAPSHOT_CHARS = 1024 * 1024
DEFAULT_ROLES = dict.fromkeys(parsers.LOAD_KINDS, "loadgen")
# A config file (nginx.conf, ...) is no tool output: it is kept as a snapshot, diffed in comparisons and read
# by the findings rules (proxy_buffers, worker_processes).
CONFIG_KIND = "config"
# cgroup files, nproc, getconf, lscpu, /proc/cpuinfo (saved files or a transcript's commands): read by the
# host-facts parser into the agent's keys and stored as one host-facts summary per role, merged.
FACTS_KIND = host_facts.KIND
# Part kinds a transcript splitter gives to outputs no parser is named for (an unknown command's).
UNKNOWN_KINDS = (None, "unknown")
# ingress-nginx's default format (its controller's nginx.conf template): read without a config.
UPSTREAMINFO = (
    "log_format upstreaminfo '$remote_addr - $remote_user [$time_local] \"$request\" '"
    " '$status $body_bytes_sent \"$http_referer\" \"$http_user_agent\" '"
    " '$request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] '"
    " '$upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id';"
)
# A format fits a log when this share of its lines match (first on a sample of its first lines).
FORMAT_FIT = 0.9
SAMPLE_LINES = 50

# (text, parsed JSON or None, preview, the read of a streaming kind's output). A streaming kind's JSON is
# its document without the records (StreamRead.doc): its samples are in the read's columns.
Analysed = tuple[str, dict[str, Any] | None, dict[str, Any], StreamRead | None]


def decode_bytes(file: ImportFile) -> bytes:
    if file.encoding == "base64":
        try:
            raw = base64.b64decode(file.content, validate=True)
        except (binascii.Error, ValueError):
            raise BadInput(f"{file.name}: content is not valid base64") from None
    else:
        raw = file.content.encode("utf-8", "surrogatepass")
    if raw[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            raw = d.decompress(raw, MAX_TEXT_BYTES + 1)
        except zlib.error as exc:
            raise BadInput(f"{file.name}: corrupt gzip data ({exc})") from None
        if len(raw) > MAX_TEXT_BYTES:
            raise PayloadTooLarge(f"{file.name}: more than {MAX_TEXT_BYTES} bytes once decompressed")
    return raw


def decode(file: ImportFile) -> str:
    text = as_given(file)
    if text is not None:
        return text
    raw = decode_bytes(file)
    if b"\0" in raw[:65536]:
        raise BadInput(f"{file.name}: this is binary data, not the text output of a tool")
    return raw.decode("utf-8", "replace")


_SURROGATE = re.compile("[\ud800-\udfff]")


def as_given(file: ImportFile) -> str | None:
    """The content itself when decoding it (decode_bytes, then UTF-8) would give it back unchanged: text that
    is neither gzip nor holds a NUL where decode_bytes looks, nor lone surrogates. That round trip copied a
    64 MB paste twice (its bytes, then its text). None: decode it."""
    content = file.content
    if file.encoding != "text" or content[:1] == "\x1f" or "\0" in content[:65536]:
        return None
    if content.isascii() or _SURROGATE.search(content) is None:
        return content
    return None


_BREAKS = ("\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")
_WIDE_BREAKS = ("\x85", "\u2028", "\u2029")


def count_lines(text: str) -> int:
    """``len(text.splitlines())``, counted in C scans instead of a list of every line."""
    if not text:
        return 0
    n = sum(map(text.count, _BREAKS)) - text.count("\r\n")
    if not text.isascii():
        n += sum(map(text.count, _WIDE_BREAKS))
    return n + (text[-1] not in _BREAKS and text[-1] not in _WIDE_BREAKS)


# -- nginx: configs and the log formats they name ------------------------------------------------------

_BLOCK = re.compile(r"^\s*(?:http|events|server|stream|upstream\s+\S+|location\s[^{]*|map\s[^{]*)\s*\{", re.MULTILINE)
# Quoted parts end on their line, and lines are bounded (_uncommented): a hostile paste cannot make the
# search quadratic.
_LOG_FORMAT = re.compile(r"(?<![\w$])log_format\s+(\w+)\s+((?:escape=\S+\s+)?(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|\s)+);")
MAX_CONF_LINE = 4096
_ACCESS_LOG = re.compile(r"(?<![\w$])access_log\s+([^;\n]*);")


def _uncommented(text: str) -> str:
    # A '#' inside a quoted format string is no comment; log formats rarely hold one, configs often do.
    return "\n".join((ln if ln.lstrip().startswith("log_format") else ln.split("#", 1)[0])[:MAX_CONF_LINE]
                     for ln in text[: 1 << 20].splitlines())


@dataclass
class NginxFormats:
    """The log formats of the import's nginx configs, and which the `access_log` lines write."""

    formats: dict[str, str] = field(default_factory=dict)  # name -> the whole `log_format ...;` directive
    # (log file base name, format name) of each access_log line, in file order
    access_logs: list[tuple[str, str]] = field(default_factory=list)

    def add(self, text: str) -> None:
        clean = _uncommented(text)
        for m in _LOG_FORMAT.finditer(clean):
            self.formats.setdefault(m.group(1), f"log_format {m.group(1)} {' '.join(m.group(2).split())};")
        for m in _ACCESS_LOG.finditer(clean):
            args = m.group(1).split()
            if not args or args[0] == "off":
                continue
            name = args[1] if len(args) > 1 and "=" not in args[1] else "combined"
            self.access_logs.append((os.path.basename(args[0]), name))

    def candidates(self, file_name: str) -> list[tuple[str, str | None]]:
        """(format name, directive or None for the parser's combined default) to try on a log, best first:
        the format of an access_log writing a file of this name, then the other access_log formats, then
        ingress-nginx's upstreaminfo, then combined/common."""
        names = [n for f, n in self.access_logs if f == os.path.basename(file_name)]
        names += [n for _, n in self.access_logs] + list(self.formats)
        out: list[tuple[str, str | None]] = []
        for name in dict.fromkeys(names):
            if name in self.formats:
                out.append((name, self.formats[name]))
        if "upstreaminfo" not in self.formats:
            out.append(("upstreaminfo", UPSTREAMINFO))
        out.append(("combined", None))
        return out


def _fits(data: dict[str, Any]) -> bool:
    requests, skipped = int(data.get("requests") or 0), int(data.get("skipped") or 0)
    return requests > 0 and requests >= FORMAT_FIT * (requests + skipped)


def parse_access_log(text: str, name: str, nginx: NginxFormats) -> dict[str, Any] | None:
    """An access log read with the first candidate format that fits its lines; None when none does."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if first.lstrip().startswith("log_format"):
        return None  # the log carries its own format: the parser reads it so
    # Each candidate is tried on the first lines before the whole log: a 100 MB combined log is read once
    # more at most, not once per format the conf defines.
    sample = "\n".join(ln for ln in text[:65536].splitlines()[:SAMPLE_LINES])
    for fmt_name, directive in nginx.candidates(name):
        try:
            if not _fits(parsers.parse("nginx-access", sample, log_format=directive)):
                continue
            data = parsers.parse("nginx-access", text, log_format=directive)
        except parsers.ParseError:
            continue
        if _fits(data):
            if directive is not None:
                data["warnings"] = [f"read with log_format {fmt_name}"
                                    + (" from the nginx.conf of this import" if fmt_name in nginx.formats else
                                       " (ingress-nginx's default)"), *data.get("warnings", [])]
            return data
    return None


_SETSOCKOPT = re.compile(r"setsockopt\(\d+, (?:SOL_TCP|IPPROTO_TCP), (TCP_[A-Z_]+), \[(-?\d+)\]")


def setsockopt_options(text: str) -> dict[str, dict[str, int]]:
    """TCP socket options a strace log shows set ({"TCP_CORK": {"1": 2908, "0": 2908}}): whether nginx
    corks its responses (tcp_nopush) or sends ACKs at once (quickack). The strace parser keeps no
    arguments, so the import reads these from the text."""
    out: dict[str, dict[str, int]] = {}
    for m in _SETSOCKOPT.finditer(text):
        values = out.setdefault(m.group(1), {})
        values[m.group(2)] = values.get(m.group(2), 0) + 1
    return out


# -- one file -------------------------------------------------------------------------------------------


def _preview_values(kind: str, data: dict[str, Any], records: int | None = None) -> dict[str, Any]:
    """``records``: how many samples a streaming kind's output holds (its read keeps them as columns)."""
    if kind in parsers.LOAD_KINDS:
        return {k: data.get(k) for k in ("requests_per_sec", "requests", "non_2xx_3xx")} | {
            "latency_p99_ms": (data.get("latency_percentiles_ms") or {}).get("99"),
            "latency_avg_ms": (data.get("latency_ms") or {}).get("avg"),
        }
    if kind == "vmstat":
        samples = len(data.get("samples") or []) if records is None else records
        return {"samples": samples, "columns": data.get("columns")}
    if kind == "pidstat":
        samples = len(data.get("samples") or []) if records is None else records
        return {"samples": samples, "averages": len(data.get("averages") or [])}
    if kind == "strace-c":
        top = sorted(data.get("syscalls") or [], key=lambda s: -(s.get("seconds") or 0))[:3]
        return {"syscalls": len(data.get("syscalls") or []), "top": [s.get("syscall") for s in top],
                "total_calls": (data.get("total") or {}).get("calls")}
    if kind == "nginx-access":
        return {"format": data.get("format"), "requests": data.get("requests"), "skipped": data.get("skipped")}
    if kind == FACTS_KIND:
        return {k: v for k, v in data.items() if k != "warnings"}
    return {"keys": sorted(data)[:10]}


def _ok(file: ImportFile, kind: str, data: dict[str, Any], role: str | None = None,
        records: int | None = None) -> dict[str, Any]:
    return {"name": file.name, "kind": kind, "ok": True, "role": role or file.role or DEFAULT_ROLES.get(kind, "target"),
            "warnings": list(data.get("warnings", [])), "preview": _preview_values(kind, data, records)}


def kept(file: ImportFile, note: str, *, kind: str | None = None, error: str | None = None) -> dict[str, Any]:
    """The preview of a file or part kept as an attachment of the run, unread."""
    info: dict[str, Any] = {"name": file.name, "kind": kind, "ok": error is None, "role": file.role or "target",
                            "warnings": [], "imported": False, "attachment": True, "note": note}
    if error is not None:
        info["error"] = error
    return info


NOT_RECOGNISED = ("not recognised: no parser knows this output; kept as an attachment of the run "
                  "(name its kind to read it)")


def _not_recognised(text: str) -> str:
    """The note of an output no parser reads; a transcript part's names the command that printed it."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    shown = prompt(first)
    if shown is None or not shown[1]:
        return NOT_RECOGNISED
    return (f"not recognised: perflab has no parser for the output of `{shown[1][:80]}`; kept as an attachment "
            "of the run")


def _facts_part(file: ImportFile, text: str, doc: dict[str, Any], name: str) -> Analysed:
    """A host-facts output as the import keeps it: its facts (the agent's keys) with where they came from; a
    `cat /proc/sys/...` of settings only is a sysctl output."""
    where = doc.get("command") or name
    if not doc["facts"] and doc.get("sysctl"):
        values = doc["sysctl"]
        data = {"values": values, "numbers": {}, "warnings": doc["warnings"]}
        # The sysctl snapshot stored is what sysctl -a would print for these, so diffs and rules read it.
        snapshot = "".join(f"{k} = {v}\n" for k, v in values.items())
        return snapshot, data, _ok(file, "sysctl", data), None
    data = {**doc["facts"], "sources": [where], "warnings": doc["warnings"]}
    return text, data, _ok(file, FACTS_KIND, data), None


def _parse_part(file: ImportFile, kind: str, text: str, offset: int, nginx: NginxFormats, name: str,
                keep: bool = True) -> Analysed:
    """(text, parsed JSON or None, preview, the read of a streaming kind) of one tool's output; what no
    parser reads, or a parser refuses, is kept as an attachment with the reason. ``keep``: a streaming kind's
    samples are kept to be stored (a preview needs only their count)."""
    detected = parsers.detect(text) if kind == "auto" else kind
    if kind == "auto" and detected in (None, "nginx-access"):
        access = parse_access_log(text, name, nginx)
        if access is not None:
            return text, access, _ok(file, "nginx-access", access), None
    if detected == FACTS_KIND or (kind == "auto" and detected is None):
        # A cgroup file's one number says what it is only by its name: the file's, or the path a
        # transcript's `cat` shows (the parser reads that from the part's prompt line).
        try:
            doc = host_facts.parse(text, file=name)
        except parsers.ParseError as exc:
            if detected is None:
                return text, None, kept(file, _not_recognised(text)), None
            error = str(exc) if exc.line is None else f"line {exc.line + offset}: {exc.message}"
            return text, None, kept(file, f"not read as {FACTS_KIND}: {error}; kept as an attachment of the run",
                                    kind=FACTS_KIND, error=error), None
        return _facts_part(file, text, doc, name)
    read = None
    try:
        if detected in pipeline.STREAMING:
            # Parsed once, a block of lines at a time, into the columns the import stores.
            read = StreamRead(str(detected), text, keep=keep)
            data = read.doc
        else:
            data = parsers.parse(str(detected), text)
            if detected == "strace" and "setsockopt" in text:
                data["setsockopt"] = setsockopt_options(text)
    except parsers.ParseError as exc:
        # Lines are counted in the file the user gave, not in the part.
        error = str(exc) if exc.line is None else f"line {exc.line + offset}: {exc.message}"
        info = kept(file, f"not read as {detected}: {error}; kept as an attachment of the run", kind=detected,
                    error=error)
        info["role"] = file.role or DEFAULT_ROLES.get(detected or "", "target")
        return text, None, info, None
    return text, data, _ok(file, str(detected), data, records=read.records if read else None), read


def _config(file: ImportFile, text: str, directives: dict[tuple[str, str], str] | None = None) -> Analysed:
    """A config file; ``directives``: what the nesting check already read from it (not read again). Its data
    carries the parsed form stored with the snapshot ("parsed"), so comparisons never parse it."""
    from perflab.compare import configs

    nginx = configs.looks_like_nginx(text) or _BLOCK.search(text[:1 << 20]) is not None
    pairs = None
    if nginx:
        if directives is None:
            directives = _nginx_directives(file, text)
        count = len(directives)
    else:
        pairs = configs.key_values(text)
        count = len(pairs)
    data: dict[str, Any] = {"format": "nginx" if nginx else "key-value", "directives": count, "warnings": []}
    if len(text) <= MAX_SNAPSHOT_CHARS:  # a larger snapshot is never read as text by a comparison
        data["parsed"] = configs.parsed_form(text, kind=CONFIG_KIND, nginx=directives, key_value=pairs)
    total = count_lines(text)
    return text, data, {"name": file.name, "kind": CONFIG_KIND, "ok": True, "role": file.role or "target",
                        "warnings": [], "preview": {"format": data["format"], "directives": count},
                        "start_line": 1 if total else None, "end_line": total or None}, None


def _part_name(file: ImportFile, part: dict[str, Any]) -> str:
    """What names a part's content: the command or path a transcript shows, else the file's name."""
    for key in ("path", "command"):
        value = part.get(key)
        if isinstance(value, str) and value.strip():
            words = value.split()
            return words[-1] if words[0] in ("cat", "head", "tail", "sudo") else value
    return file.name


def analyse(file: ImportFile, nginx: NginxFormats | None = None,
            keep: bool = True) -> tuple[str | bytes | None, list[Analysed]]:
    """The file's content and one (text, parsed JSON or None, preview, streaming read) per tool output it holds:
    a paste of wrk's summary followed by a strace -c table is two parts; lines no parser knows are a part too,
    kept as an attachment. Content is text, or bytes when the file is binary (kept as it is), or None when it
    could not even be decoded. ``keep``: keep what is to be stored (not for a preview)."""
    nginx = nginx or NginxFormats()
    kind = file.kind
    if kind != "auto" and kind != CONFIG_KIND and kind not in parsers.KINDS:
        raise BadInput(f"{file.name}: unknown kind {kind!r}; use one of {', '.join(parsers.KINDS)},"
                       f" {CONFIG_KIND} or auto")
    text = as_given(file)
    if text is None:
        try:
            raw = decode_bytes(file)
        except BadInput as exc:
            return None, [(file.content, None, kept(file, str(exc), error=str(exc)) | {"attachment": False}, None)]
        if b"\0" in raw[:65536]:
            problem = "binary data, not the text output of a tool"
            return raw, [("", None, kept(file, f"{problem}: kept as an attachment of the run", error=problem), None)]
        text = raw.decode("utf-8", "replace")
        del raw
    directives = None
    if kind == "auto" and _BLOCK.search(text[:1 << 20]):
        # A config's nesting is checked before the split, which holds a string per line: a 64 MB paste of
        # deeply nested blocks is refused at its 33rd level, not after 600 MB of lines (issue 21). What it
        # reads is what the config step stores: the text is parsed once.
        directives = _nginx_directives(file, text)
    # Split only what may hold several outputs: one tool's log is read whole (one_output tells it in a scan).
    parts = split(text) if kind == "auto" and (directives is not None or not one_output(text)) else []
    if kind == CONFIG_KIND or (kind == "auto" and _is_config(text, parts)):
        return text, [_config(file, text, directives)]
    if len(parts) <= 1:
        one = _parse_part(file, kind, text, 0, nginx, file.name, keep)
        total = count_lines(text)
        one[2].update(start_line=1 if total else None, end_line=total or None)
        if not text or text.isspace():
            one[2].update(ok=False, error="the file is empty", attachment=False, note="the file is empty")
        return text, [one]
    out: list[Analysed] = []
    for part in parts:
        if part["kind"] in UNKNOWN_KINDS:
            out.append(_unknown_part(file, part, nginx, keep))
        else:
            out.append(_parse_part(file, part["kind"], part["text"], part["start_line"] - 1, nginx, file.name, keep))
        if part.get("interval_s"):
            # `vmstat 5`: the rows are 5 s apart, which the table itself does not say
            out[-1][2]["interval_s"] = part["interval_s"]
            out[-1][2]["preview"]["interval_s"] = part["interval_s"]
        out[-1][2].update(start_line=part["start_line"], end_line=part["end_line"], excerpt=part["preview"])
        if part.get("command") is not None:
            out[-1][2]["command"] = part["command"]
    return text, out


def _unknown_part(file: ImportFile, part: dict[str, Any], nginx: NginxFormats, keep: bool = True) -> Analysed:
    """A part no parser is named for: a config a transcript `cat`s (nginx.conf), else whatever the detectors
    and the host-facts reader make of it, else an attachment whose note says which command printed it."""
    text = part["text"]
    if part.get("command"):
        body = text.split("\n", 1)[1] if "\n" in text else ""
        if _BLOCK.search(body[:1 << 20]) or _looks_like_nginx(body):
            found = _config(file, body)
            name = _part_name(file, part)
            found[2].update(name=file.name, config_name=os.path.basename(name) or file.name)
            return found[0], found[1], found[2], None
    out = _parse_part(file, "auto", text, part["start_line"] - 1, nginx, _part_name(file, part), keep)
    info = out[2]
    if info.get("attachment") and part.get("command") is not None:
        # The note names the command whose output was kept; the split's "not imported" would contradict it. A
        # command that failed or printed nothing is said so.
        failed = [w for w in part["warnings"] if " failed: " in w or "printed nothing" in w]
        if failed:
            info["note"] = failed[0].replace("; not imported", "; kept as an attachment of the run")
        if "printed nothing" in " ".join(failed):
            info.update(attachment=False, note=failed[0].replace("; not imported", "; nothing to keep"))
    else:
        info["warnings"] = list(part["warnings"]) + info["warnings"]
    return out


def _nginx_directives(file: ImportFile, text: str) -> dict[tuple[str, str], str]:
    """The directives of an nginx-like config; a 422 naming the file when its blocks nest past the cap."""
    from perflab.compare import configs

    try:
        return configs.nginx_directives(text)
    except configs.ConfigError as exc:
        raise Unprocessable(f"{file.name}: {exc}") from None


def _looks_like_nginx(text: str) -> bool:
    from perflab.compare import configs

    return configs.looks_like_nginx(text[:1 << 20])


def _is_config(text: str, parts: list[dict[str, Any]]) -> bool:
    """A config file as a whole: nginx blocks, unless the text is a paste holding tool outputs too (its
    `log_format` lines read as an access log do not count)."""
    from perflab.compare import configs

    if any(p.get("command") for p in parts):
        return False  # a terminal session, whose `cat nginx.conf` is one of its parts
    if _BLOCK.search(text[:1 << 20]):
        return not any(p["kind"] not in (*UNKNOWN_KINDS, "nginx-access") for p in parts)
    # A perf stat -j line is `{...}` too: a text some parser reads is not taken for a config.
    return "{" in text and parsers.detect(text) is None and configs.looks_like_nginx(text)


def analyse_all(files: list[ImportFile], keep: bool = True) -> list[tuple[str | bytes | None, list[Analysed]]]:
    """Every file, read with what the others say (the log formats of an nginx.conf beside an access log).
    ``keep``: keep what is to be stored (an import), not only what the preview shows."""
    nginx = NginxFormats()
    for f in files:
        readable = f.kind in ("auto", CONFIG_KIND) and f.encoding == "text"
        if readable and ("log_format" in f.content or "access_log" in f.content) and (
                f.kind == CONFIG_KIND or _BLOCK.search(f.content[:1 << 20])):
            nginx.add(f.content)
    return [analyse(f, nginx, keep) for f in files]


def preview(files: list[ImportFile]) -> list[dict[str, Any]]:
    return [a[2] for _, parts in analyse_all(files, keep=False) for a in parts]


def imported(info: dict[str, Any]) -> bool:
    return bool(info.get("ok")) and info.get("imported", True) is not False
