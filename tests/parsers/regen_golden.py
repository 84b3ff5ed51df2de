"""Rewrite the golden files: python tests/parsers/regen_golden.py [FIXTURE_SUBSTRING...]

Review every changed .expected.json by eye against its input before committing: a golden file
that encodes a bug is worse than none (git diff tests/fixtures shows what moved).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import expected_path, fixtures, run


def main(argv: list[str]) -> int:
    changed = 0
    for kind, path in fixtures():
        if argv and not any(a in str(path) for a in argv):
            continue
        text = (
            json.dumps(run(kind, path), indent=1, ensure_ascii=False, allow_nan=False)
            + "\n"
        )
        target = expected_path(path)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            changed += 1
            print(f"wrote {target.relative_to(target.parents[2])}")
    print(f"{changed} golden file(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
