"""The profiles API and CLI against a real database: upload in every format, read back, diff,
download the original safely, and refuse what must be refused."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from perflab.parsers.profiles import load_profile, tree

from tests.conftest import FIXTURES as ALL_FIXTURES

from .conftest import CAPTURES, FIXTURES, read
from .test_svg import BILLION_LAUGHS

WRK = ALL_FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "wrk.txt"
XSS = "<img src=x onerror=alert(1)>"


def _new_run(client: TestClient, slug: str, experiment: str = "default") -> str:
    r = client.post(
        f"/api/projects/{slug}/imports",
        json={"experiment": experiment, "label": experiment, "files": [{"name": "wrk.txt", "content": WRK.read_text()}]},
    )
    assert r.status_code == 201, r.text
    return str(r.json()["run_id"])


@pytest.fixture
def run_id(client: TestClient, project: dict[str, Any]) -> str:
    return _new_run(client, project["slug"])


def _upload(client: TestClient, run: str, data: bytes, **query: str) -> Any:
    return client.post(f"/api/runs/{run}/profiles", params=query, content=data,
                       headers={"Content-Type": "application/octet-stream"})


UPLOADS = [
    ("perf-script.txt.gz", CAPTURES / "default" / "perf-script.txt.gz", "perf-script", "nanoseconds", False),
    ("stacks.folded", CAPTURES / "default" / "stacks.folded", "folded", "samples", False),
    ("flamegraph.svg.gz", CAPTURES / "default" / "flamegraph.svg.gz", "svg", "samples", True),
    ("nginx-default.bt", FIXTURES / "sample-bt" / "nginx-default.bt", "stap", "samples", False),
]


@pytest.mark.parametrize(("name", "path", "fmt", "unit", "lossy"), UPLOADS)
def test_upload_each_format_and_read_it_back(
    client: TestClient, project: dict[str, Any], run_id: str, name: str, path: Any, fmt: str, unit: str, lossy: bool
) -> None:
    data = read(path)
    expected = load_profile(data)

    r = _upload(client, run_id, data, name=name, role="proxy")

    assert r.status_code == 201, r.text
    created = r.json()
    assert {k: created[k] for k in ("format", "unit", "total", "frames", "lossy")} == {
        "format": fmt, "unit": unit, "total": expected.total, "frames": expected.frames, "lossy": lossy,
    }
    pid = created["profile_id"]
    meta = client.get(f"/api/profiles/{pid}").json()
    assert meta["run_id"] == run_id and meta["role"] == "proxy" and meta["name"] == name
    assert meta["experiment_name"] == "default" and meta["stacks"] == len(expected.stacks)
    assert (meta["tolerance"] is not None) == lossy
    assert client.get(f"/api/profiles/{pid}/tree").json()["nodes"] == tree(expected)["nodes"]
    assert [p["profile_id"] for p in client.get(f"/api/runs/{run_id}/profiles").json()] == [pid]
    assert [p["profile_id"] for p in client.get(f"/api/projects/{project['slug']}/profiles").json()] == [pid]


def test_stored_stacks_are_the_upload_folded(client: TestClient, run_id: str) -> None:
    perf = read(CAPTURES / "default" / "perf-script.txt.gz")
    pid = _upload(client, run_id, perf, name="perf").json()["profile_id"]

    r = client.get(f"/api/profiles/{pid}/folded")

    # Byte-identical to FlameGraph's stackcollapse-perf.pl on the same capture.
    assert r.content == read(CAPTURES / "default" / "stacks.folded")
    assert r.headers["content-disposition"].startswith("attachment;")


def test_function_table_by_total_and_by_self(client: TestClient, run_id: str) -> None:
    pid = _upload(client, run_id, read(CAPTURES / "default" / "stacks.folded"), unit="nanoseconds").json()["profile_id"]

    by_total = client.get(f"/api/profiles/{pid}/functions", params={"limit": 5}).json()
    by_self = client.get(f"/api/profiles/{pid}/functions", params={"order": "self", "limit": 5}).json()

    assert by_total["unit"] == "nanoseconds"
    totals = [f["total_value"] for f in by_total["functions"]]
    assert by_total["functions"][0] == {"name": "nginx", "self_value": 0, "total_value": by_total["total"]}
    assert totals == sorted(totals, reverse=True) and len(totals) == 5
    selfs = [f["self_value"] for f in by_self["functions"]]
    assert selfs == sorted(selfs, reverse=True) and selfs[0] > 0


def test_diff_two_experiments(client: TestClient, project: dict[str, Any], run_id: str) -> None:
    other_run = _new_run(client, project["slug"], "buffers-4x128k")
    base = _upload(client, run_id, read(CAPTURES / "default" / "perf-script.txt.gz")).json()
    other = _upload(client, other_run, read(CAPTURES / "buffers-4x128k" / "perf-script.txt.gz")).json()

    d = client.get(f"/api/profiles/{base['profile_id']}/diff", params={"other": other["profile_id"]}).json()

    assert d["unit"] == "nanoseconds"
    assert (d["base_total"], d["other_total"]) == (3535070112, 3795591152)
    assert d["factor"] == pytest.approx(3535070112 / 3795591152)
    root = d["nodes"][0]
    assert root[1] == -1 and root[3] == d["base_total"] and root[5] == d["other_total"]
    readv = next(f for f in d["functions"] if f["name"] == "__GI___readv")
    assert readv["delta_total"] < 0  # bigger buffers: fewer, larger readv calls


def test_diff_refuses_different_units(client: TestClient, run_id: str) -> None:
    a = _upload(client, run_id, read(CAPTURES / "default" / "perf-script.txt.gz")).json()["profile_id"]
    b = _upload(client, run_id, read(FIXTURES / "sample-bt" / "nginx-default.bt")).json()["profile_id"]

    r = client.get(f"/api/profiles/{a}/diff", params={"other": b})

    assert r.status_code == 400 and "nanoseconds with samples" in r.json()["detail"]


def test_original_svg_is_only_a_sandboxed_download(client: TestClient, run_id: str) -> None:
    svg = gzip.decompress(read(CAPTURES / "default" / "flamegraph.svg.gz"))
    assert b"<script" in svg
    pid = _upload(client, run_id, svg, name="flame graph <x>.svg").json()["profile_id"]

    r = client.get(f"/api/profiles/{pid}/original")

    assert r.status_code == 200 and r.content == svg
    assert r.headers["content-security-policy"] == "default-src 'none'; sandbox"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["content-disposition"] == (
        "attachment; filename=\"flame_graph__x_.svg\"; filename*=UTF-8''flame%20graph%20%3Cx%3E.svg"
    )
    assert r.headers["content-type"] == "application/octet-stream"


def test_frame_names_are_text_in_the_api(client: TestClient, run_id: str) -> None:
    data = f"app;{XSS};handler 5\napp;\"><svg onload=alert(1)> 2\n".encode()
    pid = _upload(client, run_id, data).json()["profile_id"]

    names = client.get(f"/api/profiles/{pid}/tree").json()["names"]
    functions = client.get(f"/api/profiles/{pid}/functions").json()["functions"]

    assert XSS in names and '"><svg onload=alert(1)>' in names
    assert {f["name"] for f in functions} >= {XSS, '"><svg onload=alert(1)>'}


def test_bad_uploads_get_a_4xx_naming_the_problem(client: TestClient, run_id: str) -> None:
    bad = _upload(client, run_id, b"main;a 1\nmain;b\n", name="stacks.folded")
    assert bad.status_code == 422
    assert bad.json()["detail"].startswith("stacks.folded: line 2: expected 'frame;frame;... count'")

    start = time.monotonic()
    bomb = _upload(client, run_id, BILLION_LAUGHS, name="x.svg")
    assert bomb.status_code == 422 and "SVG refused" in bomb.json()["detail"]
    assert time.monotonic() - start < 2.0

    empty = _upload(client, run_id, b"")
    assert empty.status_code == 400
    assert client.get(f"/api/runs/{run_id}/profiles").json() == []


def test_gzip_bomb_upload_is_413(app: Any, client: TestClient, run_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from perflab.config import get_settings

    monkeypatch.setenv("PERFLAB_MAX_DECOMPRESSED_BYTES", str(8 << 20))
    get_settings.cache_clear()
    bomb = gzip.compress(b"\x00" * (1 << 20), 9) * 64  # 64 MiB inflated, 64 KiB sent

    r = _upload(client, run_id, bomb, name="bomb.gz")

    assert r.status_code == 413 and "larger than 8388608 bytes" in r.json()["detail"]


def test_every_profile_route_needs_credentials(anon: TestClient, client: TestClient, run_id: str) -> None:
    pid = _upload(client, run_id, read(CAPTURES / "direct" / "stacks.folded")).json()["profile_id"]
    for path in ("", "/tree", "/functions", "/original", "/folded", f"/diff?other={pid}"):
        assert anon.get(f"/api/profiles/{pid}{path}").status_code == 401, path
    assert anon.get(f"/api/runs/{run_id}/profiles").status_code == 401
    assert _upload(anon, run_id, b"main 1\n").status_code == 401


@pytest.fixture
def bearer(app: Any) -> Callable[[str], TestClient]:
    def make(token: str) -> TestClient:
        c = TestClient(app)
        c.headers["Authorization"] = f"Bearer {token}"
        return c

    return make


def test_agent_tokens_upload_to_their_project_only(
    client: TestClient, project: dict[str, Any], run_id: str, bearer: Callable[[str], TestClient]
) -> None:
    def token(slug: str, scope: str) -> str:
        r = client.post(f"/api/projects/{slug}/tokens", json={"name": scope, "scopes": scope.split(",")})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    other = client.post("/api/projects", json={"name": "elsewhere"}).json()
    ingest, read_only, stranger = (
        token(project["slug"], "ingest,read"), token(project["slug"], "read"), token(other["slug"], "ingest,read"),
    )
    data = read(CAPTURES / "direct" / "perf-script.txt.gz")

    uploaded = _upload(bearer(ingest), run_id, data, name="perf", role="proxy")
    assert uploaded.status_code == 201, uploaded.text
    pid = uploaded.json()["profile_id"]
    assert _upload(bearer(read_only), run_id, data).status_code == 403
    assert bearer(read_only).get(f"/api/profiles/{pid}/tree").status_code == 200
    assert _upload(bearer(stranger), run_id, data).status_code == 404
    assert bearer(stranger).get(f"/api/profiles/{pid}").status_code == 404


def test_unknown_and_malformed_profile_ids(client: TestClient) -> None:
    assert client.get("/api/profiles/00000000-0000-0000-0000-000000000000").status_code == 404
    r = client.get("/api/profiles/not-a-uuid")
    assert r.status_code == 400 and "not a profile id" in r.json()["detail"]


def test_cli_profile_show(client: TestClient, run_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    from perflab.cli import main

    pid = _upload(client, run_id, read(CAPTURES / "default" / "perf-script.txt.gz"), name="perf").json()["profile_id"]

    assert main(["profile", "show", pid, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert main(["profile", "show", pid]) == 0
    text = capsys.readouterr().out

    assert (shown["unit"], shown["total"], shown["lossy"]) == ("nanoseconds", 3535070112, False)
    assert shown["frames"] == load_profile(read(CAPTURES / "default" / "perf-script.txt.gz")).frames
    assert len(shown["top_by_self"]) == 20 and len(shown["top_by_total"]) == 20
    assert shown["top_by_total"][0] == {"name": "nginx", "self": 0, "total": 3535070112}
    assert "total: 3,535,070,112 nanoseconds" in text and "top 20 functions by self:" in text


def test_downloads_named_in_any_script_keep_their_name(client: TestClient, run_id: str) -> None:
    # "性能.svg" cannot travel in a Latin-1 header as it is (it was a 500): RFC 6266 and 5987 give
    # an ASCII fallback and the UTF-8 name percent-encoded; browsers save it as 性能.svg.
    svg = gzip.decompress(read(CAPTURES / "direct" / "flamegraph.svg.gz"))
    pid = _upload(client, run_id, svg, name="性能.svg").json()["profile_id"]
    meta = client.get(f"/api/profiles/{pid}").json()
    encoded = "%E6%80%A7%E8%83%BD.svg"

    original = client.get(f"/api/profiles/{pid}/original")
    stacks = client.get(f"/api/profiles/{pid}/folded")
    artifact = client.get(f"/api/artifacts/{meta['artifact_id']}/download")

    assert original.status_code == stacks.status_code == artifact.status_code == 200
    assert original.headers["content-disposition"] == f"attachment; filename=\"__.svg\"; filename*=UTF-8''{encoded}"
    assert stacks.headers["content-disposition"].endswith(f"filename*=UTF-8''{encoded}.folded")
    assert artifact.headers["content-disposition"] == original.headers["content-disposition"]
    assert artifact.content == original.content == svg
    for r in (original, stacks, artifact):
        assert r.headers["content-security-policy"] == "default-src 'none'; sandbox"
        assert r.headers["x-content-type-options"] == "nosniff"
    plain = _upload(client, run_id, svg, name="direct.svg").json()["profile_id"]
    assert client.get(f"/api/profiles/{plain}/original").headers["content-disposition"] == (
        'attachment; filename="direct.svg"'
    )


def test_unit_of_a_folded_upload(client: TestClient, run_id: str) -> None:
    # stackcollapse-perf.pl's output of a cpu-clock capture counts nanoseconds; the file cannot
    # say so, the uploader can.
    data = read(CAPTURES / "default" / "stacks.folded")

    default = _upload(client, run_id, data).json()
    given = _upload(client, run_id, data, unit="nanoseconds").json()
    bad = _upload(client, run_id, data, unit="<b>")

    assert default["unit"] == "samples" and any("unit=nanoseconds" in w for w in default["warnings"])
    assert given["unit"] == "nanoseconds" and not any("unit=" in w for w in given["warnings"])
    assert client.get(f"/api/profiles/{given['profile_id']}").json()["unit"] == "nanoseconds"
    assert bad.status_code == 422 and "expected a word such as samples" in bad.json()["detail"]
