"""Shared pieces of the parsers: the error type, number readers, the line-parser base class.

Everything here is standard library only; parsers must stay importable without the web stack.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, ClassVar, Self

if TYPE_CHECKING:
    from decimal import Decimal

JSON = dict[str, Any]


class ParseError(ValueError):
    """The one exception parsers raise on bad input.

    ``str(e)`` is ``"line 12: expected ..."`` when the line is known, else just the message.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (ParseError, (self.message, self.line))


# Pasted text is truncated with these; they stand for "lines left out here".
ELISIONS = frozenset(
    {"...", "…", "[...]", "[…]", "<snip>", "[snip]", "(...)", "...snip..."}
)


def is_elision(stripped: str) -> bool:
    return stripped in ELISIONS or (
        len(stripped) >= 3 and set(stripped) <= {".", "…", " "}
    )


def show(line: str, limit: int = 60) -> str:
    """A line quoted for an error message, shortened so one bad megabyte line stays readable."""
    line = line.strip()
    if len(line) > limit:
        line = line[: limit - 3] + "..."
    return repr(line)


def to_int(tok: str) -> int | None:
    """An ASCII decimal integer or None. int() alone would also take '٣', '1_0' and ' 7 '."""
    if not tok or not tok.isascii():
        return None
    body = tok[1:] if tok[0] in "+-" else tok
    # int() refuses more than 4300 digits (ValueError); no tool counts that high
    if not body.isdigit() or len(body) > MAX_DIGITS:
        return None
    return int(tok)


#: longer digit strings are no count any tool prints (2**64 has 20 digits)
MAX_DIGITS = 40


_FLOAT_CHARS = frozenset("0123456789.+-eE")


def to_float(tok: str, decimal_comma: bool = False) -> float | None:
    """A finite ASCII decimal number or None (never nan/inf, which JSON cannot carry)."""
    if decimal_comma:
        tok = tok.replace(",", ".")
    if not tok or not tok.isascii() or not set(tok) <= _FLOAT_CHARS:
        return None
    if not any(c.isdigit() for c in tok):
        return None
    try:
        value = float(tok)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return value


# Thousands separators other than '.' and ',': glibc's fr_FR/ru_RU print U+202F (older glibc
# U+00A0), de_CH an apostrophe. The spaces split words, so callers join them first (join_grouped).
_GROUP_SPACES = re.compile("(?<=[0-9])[\u202f\u00a0\u2009'\u2019](?=[0-9]{3})")


def join_grouped(line: str) -> str:
    """'9\u202f634' -> '9634': a thousands space must not split a number into two words."""
    if line.isascii() and "'" not in line:
        return line
    return _GROUP_SPACES.sub("", line)


def decimal_mark(tokens: list[str]) -> str | None:
    """',' or '.': the decimal mark the numbers in ``tokens`` show, or None when none tells.

    '218,07', '0,915133415' (not three digits after the mark) and '1.234,5' (both marks, the
    last one is decimal) are evidence; '1,432' and '9.634' are not (grouping or decimals?)."""
    votes = {",": 0, ".": 0}
    for tok in tokens:
        tok = tok.strip("+-%()")
        if not tok or not tok[0].isdigit() or not tok[-1].isdigit():
            continue
        c, d = tok.rfind(","), tok.rfind(".")
        if c >= 0 and d >= 0:
            votes[tok[max(c, d)]] += 1
            continue
        i = max(c, d)
        if (
            i > 0
            and len(tok) - i - 1 != 3
            and tok[:i].isdigit()
            and tok[i + 1 :].isdigit()
        ):
            votes[tok[i]] += 1
    if votes[","] == votes["."]:
        return None
    return "," if votes[","] > votes["."] else "."


def to_grouped_float(tok: str, mark: str = ".") -> float | None:
    """A number as a locale prints it: ``mark`` is the decimal mark, the other one groups
    thousands ('19.730,56' with mark ',', '1,432' with '.'). Groups that are not of three digits
    ('1,43') make it None rather than a wrong value."""
    group = "," if mark == "." else "."
    if group in tok:
        whole = tok.partition(mark)[0].lstrip("+-")
        parts = whole.split(group)
        if not (
            1 <= len(parts[0]) <= 3
            and parts[0].isdigit()
            and all(len(p) == 3 and p.isdigit() for p in parts[1:])
        ):
            return None
        tok = tok.replace(group, "")
    if tok.count(mark) > 1:
        return None
    return to_float(tok, decimal_comma=mark == ",")


def to_decimal(tok: str) -> Decimal | None:
    """Exact decimal, for unit conversions that must not pick up binary float noise."""
    # imported here: `perflab parse strace` never needs decimal, and its start-up is timed
    from decimal import Decimal, InvalidOperation

    value = to_float(tok)
    if value is None:
        return None
    try:
        return Decimal(tok)
    except InvalidOperation:
        return None


def dec_to_float(value: Decimal) -> float | None:
    """A Decimal as a float, or None when it overflows (JSON has no Infinity)."""
    result = float(value)
    return result if math.isfinite(result) else None


# control characters no tool prints (tab, newlines, form feed, escape are fine), and the
# replacement character that undecodable bytes became
_CONTROL = re.compile("[\x01-\x08\x0e-\x1a\x1c-\x1f\ufffd]")


def check_text(text: str) -> None:
    """Refuse binary data early, with a message a user understands."""
    sample = text[:65536]
    if "\x00" in sample:
        raise ParseError(
            "binary data, not text (NUL bytes); is this the right file?", 1
        )
    if not sample:
        return
    bad = len(_CONTROL.findall(sample))
    if bad > max(8, len(sample) // 100):
        raise ParseError(
            "binary data, not text (control characters or undecodable bytes)", 1
        )


class LineParser:
    """Base of the streaming parsers (vmstat, pidstat, netqtop).

    ``feed(line)`` returns the records that line completed; ``finish()`` flushes; ``state()`` is
    JSON-serialisable so a server can resume with ``from_state()`` in another process days later.
    """

    kind: ClassVar[str] = ""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.line_no = 0

    def feed(self, line: str) -> list[JSON]:
        raise NotImplementedError

    def finish(self) -> list[JSON]:
        raise NotImplementedError

    def result(self, records: list[JSON]) -> JSON:
        """The document ``parse()`` returns, given every record fed and finished."""
        raise NotImplementedError

    def state(self) -> JSON:
        raise NotImplementedError

    @classmethod
    def from_state(cls, state: JSON) -> Self:
        raise NotImplementedError

    def warn(self, message: str, line: int | None = None) -> None:
        # A long stream of the same defect must not grow the warning list without bound.
        if len(self.warnings) < 200:
            self.warnings.append(
                f"line {line}: {message}" if line is not None else message
            )
        elif len(self.warnings) == 200:
            self.warnings.append("more warnings suppressed")


def split_lines(text: str) -> list[str]:
    """Lines as the tools wrote them: split on newlines only (str.splitlines would also split on
    \\x0c, \\x85 and U+2028, which can occur inside a command name), without the \\r of CRLF pastes."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [ln.removesuffix("\r") for ln in lines]
    return lines


def parse_lines(parser: LineParser, text: str) -> JSON:
    """Whole-text parse through the streaming parser: one code path for both."""
    records: list[JSON] = []
    feed = parser.feed
    for line in split_lines(text):
        out = feed(line)
        if out:
            records.extend(out)
    records.extend(parser.finish())
    return parser.result(records)
