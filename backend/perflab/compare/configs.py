"""What changed between two runs: unified diffs of config snapshots, sysctls and host facts, and the
knob changes read from them (`proxy_buffers (default) -> 4 128k`) that pre-fill a decision.

Pure text in, data out: no database, no web framework.
"""

from __future__ import annotations

import difflib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

DEFAULT = "(default)"
MAX_DIFF_LINES = 2000

# nginx's built-in values for the directives engineers tune most (nginx.org docs; buffer sizes are
# "one memory page", 4k on x86-64 Linux). A directive absent from a config has this value, and a
# decision reads better as `proxy_buffers 8 4k -> 4 128k` than as `(default) -> 4 128k`.
NGINX_DEFAULTS = {
    "proxy_buffers": "8 4k",
    "proxy_buffer_size": "4k",
    "proxy_busy_buffers_size": "8k",
    "proxy_buffering": "on",
    "proxy_http_version": "1.0",
    "proxy_read_timeout": "60s",
    "proxy_connect_timeout": "60s",
    "proxy_max_temp_file_size": "1024m",
    "fastcgi_buffers": "8 4k",
    "fastcgi_buffer_size": "4k",
    "client_body_buffer_size": "16k",
    "worker_processes": "1",
    "worker_connections": "512",
    "keepalive_timeout": "75s",
    "keepalive_requests": "1000",
    "sendfile": "off",
    "tcp_nopush": "off",
    "tcp_nodelay": "on",
    "access_log": "logs/access.log combined",
    "output_buffers": "2 32k",
    "gzip": "off",
}


def default_value(name: str, *, nginx: bool) -> str:
    if nginx and name in NGINX_DEFAULTS:
        return f"{NGINX_DEFAULTS[name]} (default)"
    return DEFAULT


@dataclass(frozen=True)
class Knob:
    component: str
    knob: str
    context: str
    before: str
    after: str
    file: str


def unified_diff(before: str, after: str, *, from_name: str, to_name: str) -> tuple[str, bool]:
    """The unified diff (empty when equal) and whether it was cut at MAX_DIFF_LINES."""
    lines = list(
        difflib.unified_diff(before.splitlines(), after.splitlines(), fromfile=from_name, tofile=to_name, lineterm="")
    )
    truncated = len(lines) > MAX_DIFF_LINES
    return "\n".join(lines[:MAX_DIFF_LINES]), truncated


def _same_file(a: str, b: str) -> bool:
    """Whether two snapshot names are one file seen from different directories: the stored name of an
    agent's /etc/nginx/nginx.conf is "_etc_nginx_nginx.conf" (separators become "_"), an import's is
    "nginx.conf"; one must end with the other after a separator."""
    short, long = sorted((a, b), key=len)
    return long.endswith(short) and long[-len(short) - 1] in "/\\_"


def match_names(base: list[str], other: list[str]) -> dict[str, str]:
    """Names of `other` renamed to the `base` name they stand for (kind and role already equal): equal
    names match; otherwise a name matches the one base name it is the same file as, whatever the
    directory. Names without a unique match keep their own (shown as added / removed)."""
    out = {n: n for n in other}
    left = [n for n in base if n not in other]
    for n in other:
        if n in base:
            continue
        candidates = [b for b in left if _same_file(b, n)]
        if len(candidates) == 1 and sum(_same_file(candidates[0], o) for o in other if o not in base) == 1:
            out[n] = candidates[0]
            left.remove(candidates[0])
    return out


def component_of(file_name: str, kind: str) -> str:
    if kind == "sysctl":
        return "kernel"
    base = re.split(r"[\\/]", file_name)[-1]
    stem = base.split(".", 1)[0] if "." in base else base
    return stem or base or "config"


# -- nginx-like configs: `directive args;` and `block args { ... }` ----------------------------------


# A comment (a "#" that starts a word), one of "{};", or a word: runs of other non-blank characters
# and quoted strings (kept with their quotes, a backslash escaping the next character inside them).
# The alternatives start with different characters, so the scan is linear (and in C).
_TOKEN = re.compile(
    r"""#[^\n]*|[{};]|(?:[^\s{};"']|"(?:[^"\\]|\\[\s\S]|\\\Z)*(?:"|\Z)|'(?:[^'\\]|\\[\s\S]|\\\Z)*(?:'|\Z))+""", re.DOTALL
)


def _tokens(text: str) -> Iterator[str]:
    """Words, quoted strings (kept with quotes), and the punctuation `{`, `}`, `;`. Comments dropped.
    One at a time: a refused config stops before the rest is split (64 MB held ~1 GB as a list)."""
    for match in _TOKEN.finditer(text):
        tok = match.group()
        if tok[0] != "#":
            yield tok


def looks_like_nginx(text: str) -> bool:
    if "{" not in text:
        return False
    lines = ended = 0
    for raw in io.StringIO(text):  # line by line: a list of a 64 MB file's lines is ~10x its size
        line = raw.split("#", 1)[0].strip()
        if line:
            lines += 1
            ended += line.endswith((";", "{", "}"))
    return lines > 0 and ended / lines >= 0.8


MAX_NESTING = 32
"""Blocks an nginx-like config may nest. nginx's own configs go 4-6 deep (http > server > location
> location > if); without a cap a context name, which is the whole block path, grows with the
depth and a 135 KB config of 10,000 nested blocks took +612 MiB at import (issue 21)."""


class ConfigError(ValueError):
    """A config this parser refuses (blocks nested past :data:`MAX_NESTING`); the message says so."""


def nginx_directives(text: str) -> dict[tuple[str, str], str]:
    """{(context, directive): args} with repeated directives joined by ' | ' in file order.

    Linear in the text: a block's context is built once when it opens (its parent's plus its
    label) and shared by every directive inside it. Raises :class:`ConfigError` when blocks nest
    deeper than :data:`MAX_NESTING`.
    """
    out: dict[tuple[str, str], list[str]] = {}
    stack: list[str] = []  # the context of each open block: "http > server > location /"
    context = ""
    seen_blocks: dict[tuple[str, str], int] = {}
    words: list[str] = []
    for tok in _tokens(text):
        if tok == ";":
            if words:
                out.setdefault((context, words[0]), []).append(" ".join(words[1:]))
            words = []
        elif tok == "{":
            if len(stack) >= MAX_NESTING:
                raise ConfigError(
                    f"blocks nested more than {MAX_NESTING} deep (at {' '.join(words)[:60] or '{'!r}): "
                    "not an nginx config this dashboard reads"
                )
            label = " ".join(words) or "{}"
            # Two `server` blocks in one `http`: number the second one so their directives stay apart.
            key = (context, label)
            seen_blocks[key] = n = seen_blocks.get(key, 0) + 1
            label = label if n == 1 else f"{label}#{n}"
            stack.append(context)
            context = f"{context} > {label}" if context else label
            words = []
        elif tok == "}":
            if stack:
                context = stack.pop()
            words = []
        else:
            words.append(tok)
    return {k: " | ".join(v) for k, v in out.items()}


def key_values(text: str) -> dict[tuple[str, str], str]:
    """`name = value` lines (sysctl -a, sysctl.conf, ini-like files)."""
    out: dict[tuple[str, str], str] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if "=" in line:
            k, _, v = line.partition("=")
            out[(section, k.strip())] = v.strip()
    return out


# -- the parsed form stored with a snapshot ---------------------------------------------------------------

PARSED_VERSION = 1
"""Bumped when the parse below changes what it reads: stored forms of another version are built again."""

Form = dict[str, Any]


def parsed_form(text: str, *, kind: str, nginx: dict[tuple[str, str], str] | None = None,
                key_value: dict[tuple[str, str], str] | None = None) -> Form:
    """What a config or sysctl snapshot says, as stored beside it (``artifact.parsed``) when it is stored, so a
    comparison, a share view or a findings rule reads it without parsing the text again (issue 21: a nested
    config cost every viewer seconds per page load):

        {"v": PARSED_VERSION, "format": "nginx" | "key-value", "directives": [[context, directive, args], ...]}
        {"v": PARSED_VERSION, "format": "nginx", "error": why}   # refused (blocks nested past the cap)

    ``format`` is what :func:`knob_changes` reads the file as (nginx-like, else ``name = value`` lines; a sysctl
    snapshot is always the latter). ``nginx``, ``key_value``: what :func:`nginx_directives` or :func:`key_values`
    already read from ``text`` (an import reads a config to check its nesting and count its directives), so the
    text is not parsed a second time."""
    if kind == "sysctl" or not looks_like_nginx(text):
        found = key_value if key_value is not None else key_values(text)
        return {"v": PARSED_VERSION, "format": "key-value", "directives": _rows(found)}
    return _nginx_form(text, nginx)


def _nginx_form(text: str, nginx: dict[tuple[str, str], str] | None = None) -> Form:
    if nginx is None:
        try:
            nginx = nginx_directives(text)
        except ConfigError as exc:
            return {"v": PARSED_VERSION, "format": "nginx", "error": str(exc)}
    return {"v": PARSED_VERSION, "format": "nginx", "directives": _rows(nginx)}


def _rows(directives: dict[tuple[str, str], str]) -> list[list[str]]:
    return [[context, name, value] for (context, name), value in directives.items()]


def is_current(form: Any) -> bool:
    """Whether a stored form can be read as it is (None: stored before forms were; another version: built by
    an older parse)."""
    return isinstance(form, dict) and form.get("v") == PARSED_VERSION


def directives(form: Form) -> dict[tuple[str, str], str] | None:
    """{(context, directive): args} of a parsed form; None for a config refused when it was stored."""
    if "error" in form:
        return None
    return {(context, name): value for context, name, value in form["directives"]}


def knob_changes(before: str | None, after: str | None, *, file: str, kind: str,
                 forms: tuple[Form | None, Form | None] = (None, None)) -> list[Knob]:
    """Directives whose value differs; a side without the directive shows `(default)`.

    ``forms``: the stored parsed forms of the two sides (:func:`parsed_form`), read instead of the texts; a side
    without one is parsed here. A file that exists on one side only yields no knobs: without the other side's
    file, "before" would be a guess.
    """
    if before is None or after is None:
        return []
    fa = forms[0] if forms[0] is not None else parsed_form(before, kind=kind)
    fb = forms[1] if forms[1] is not None else parsed_form(after, kind=kind)
    nginx = "nginx" in (fa["format"], fb["format"])
    if nginx:
        # A file nginx-like on one side only (it changed shape): both sides are read as nginx, so a directive
        # compares with itself. Rare, and paid only then.
        fa = fa if fa["format"] == "nginx" else _nginx_form(before)
        fb = fb if fb["format"] == "nginx" else _nginx_form(after)
    a, b = directives(fa), directives(fb)
    if a is None or b is None:
        return []  # stored before the cap; the file's text diff still shows what changed
    component = component_of(file, kind)
    out = []
    for key in sorted(set(a) | set(b), key=lambda k: (k[0], k[1])):
        va, vb = a.get(key), b.get(key)
        if va == vb:
            continue
        context, name = key
        out.append(Knob(component, name, context, default_value(name, nginx=nginx) if va is None else va,
                        default_value(name, nginx=nginx) if vb is None else vb, file))
    return out


def facts_text(facts: dict[str, Any]) -> str:
    """Host facts as sorted `key = value` lines, nested keys dotted, so they diff line by line."""
    lines: list[str] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for k in sorted(value):
                walk(f"{prefix}.{k}" if prefix else str(k), value[k])
        else:
            lines.append(f"{prefix} = {json.dumps(value, sort_keys=True) if not isinstance(value, str) else value}")

    walk("", facts)
    return "\n".join(lines) + ("\n" if lines else "")
