"""nginx-like configs are read in time and memory linear in the text, and deep nesting is refused
with a clear 422 (issue 21: a 135 KB config of 10,000 nested blocks cost +612 MiB at import
preview, and every comparison and public share view parsed it again)."""

from __future__ import annotations

import time
import tracemalloc
from typing import Any

from fastapi.testclient import TestClient
from perflab.compare import configs

NESTED = "http {\n" + "".join(f"b{i} {{ x 1;\n" for i in range(10_000)) + "}\n" * 10_001


def _wide(servers: int) -> str:
    return "http {\n" + "".join(
        f"  server {{ listen {i}; location /{i} {{ proxy_pass http://u{i}; if ($a) {{ return 404; }} }} }}\n"
        for i in range(servers)
    ) + "}\n"


def test_nesting_past_the_cap_is_refused_naming_the_cap_in_little_memory() -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        configs.nginx_directives(NESTED)
        raise AssertionError("10,000 nested blocks were accepted")
    except configs.ConfigError as exc:
        assert f"more than {configs.MAX_NESTING} deep" in str(exc)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 * len(NESTED), f"{peak / 1e6:.1f} MB for a {len(NESTED) / 1e3:.0f} KB config"
    assert elapsed < 1.0


def test_nesting_at_the_cap_reads_every_directive_in_linear_memory() -> None:
    depth = configs.MAX_NESTING
    text = "".join(f"b{i} {{ x {i};\n" for i in range(depth)) + "}\n" * depth
    out = configs.nginx_directives(text)
    assert len(out) == depth
    assert out[(" > ".join(f"b{i}" for i in range(depth)), "x")] == str(depth - 1)
    # Many blocks side by side: memory follows the text, not blocks x depth.
    wide = _wide(20_000)
    tracemalloc.start()
    directives = configs.nginx_directives(wide)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert directives[("http > server#20000 > location /19999 > if ($a)", "return")] == "404"
    assert peak < 40 * len(wide), f"{peak / 1e6:.1f} MB for {len(wide) / 1e6:.1f} MB of config"


def test_import_preview_of_a_deeply_nested_config_is_a_422_naming_the_file(
    client: TestClient, project: dict[str, Any]
) -> None:
    started = time.monotonic()
    r = client.post(
        f"/api/projects/{project['slug']}/imports/preview",
        json={"files": [{"name": "nginx.conf", "content": NESTED}]},
    )
    assert r.status_code == 422, r.text
    assert "nginx.conf" in r.text and f"more than {configs.MAX_NESTING} deep" in r.text
    assert time.monotonic() - started < 2.0
