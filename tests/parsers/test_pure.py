"""The parsers are pure: importing them pulls in nothing but the standard library."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

from .corpus import ROOT

PACKAGE = ROOT / "backend" / "perflab" / "parsers"
MODULES = sorted(p for p in PACKAGE.glob("*.py"))


def test_importing_every_parser_loads_only_the_standard_library() -> None:
    names = [f"perflab.parsers.{p.stem}" for p in MODULES if p.stem != "__init__"]
    code = (
        "import sys, json\n"
        f"for name in {names!r}: __import__(name)\n"
        "from perflab.parsers import parse, detect\n"
        "parse('vmstat', ' r b swpd free buff cache si so bi bo in cs us sy id wa st\\n"
        " 1 0 0 1 1 1 0 0 0 0 1 1 1 1 98 0 0\\n')\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    # -S: no site packages, so nothing but the standard library can even be found
    env = dict(os.environ, PYTHONPATH=str(ROOT / "backend"))
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, env=env, check=True
    ).stdout
    loaded = json.loads(out)
    foreign = sorted(
        m
        for m in loaded
        if m.split(".")[0] not in sys.stdlib_module_names
        and m.split(".")[0] not in ("perflab", "__main__")
    )
    assert foreign == []
    ours = [
        m
        for m in loaded
        if m.startswith("perflab.") and not m.startswith("perflab.parsers")
    ]
    assert ours == [], "parsers must not import the rest of perflab"


def test_source_imports_nothing_outside_the_standard_library() -> None:
    for path in MODULES:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: within perflab.parsers
                    continue
                roots = [(node.module or "").split(".")[0]]
            else:
                continue
            for root in roots:
                assert root in sys.stdlib_module_names or root == "__future__", (
                    f"{path.name} imports {root}"
                )
