"""Importing pasted tool output: preview, save as a run, dedupe by content, clear errors."""

from __future__ import annotations

import base64
import gzip
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import FIXTURES

RUN1 = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1"


def _files() -> list[dict[str, Any]]:
    return [
        {"name": "wrk.txt", "content": (RUN1 / "wrk.txt").read_text()},
        {"name": "vmstat.txt", "content": (RUN1 / "vmstat.txt").read_text(), "role": "proxy"},
        {"name": "pidstat.txt", "content": (RUN1 / "pidstat.txt").read_text(), "role": "proxy"},
        {"name": "strace-c.txt", "content": (RUN1 / "strace-c.txt").read_text(), "role": "proxy"},
    ]


def test_preview_detects_each_kind_and_shows_values(client: TestClient, project: dict[str, Any]) -> None:
    r = client.post(f"/api/projects/{project['slug']}/imports/preview", json={"files": _files()})
    assert r.status_code == 200, r.text
    files = {f["name"]: f for f in r.json()["files"]}
    assert [files[n]["kind"] for n in ("wrk.txt", "vmstat.txt", "pidstat.txt", "strace-c.txt")] == [
        "wrk", "vmstat", "pidstat", "strace-c"]
    assert files["wrk.txt"]["role"] == "loadgen" and files["vmstat.txt"]["role"] == "proxy"
    rps_line = next(x for x in (RUN1 / "wrk.txt").read_text().splitlines() if x.startswith("Requests/sec"))
    assert files["wrk.txt"]["preview"]["requests_per_sec"] == float(rps_line.split()[1])
    assert files["strace-c.txt"]["preview"]["top"][0] == "writev"


def test_import_creates_a_run_with_summaries_series_and_raw_text(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    r = client.post(f"/api/projects/{slug}/imports",
                    json={"experiment": "default", "label": "run 1", "files": _files()})
    assert r.status_code == 201, r.text
    run_id = r.json()["run_id"]
    detail = client.get(f"/api/runs/{run_id}").json()
    kinds = sorted(s["kind"] for s in detail["summaries"])
    assert "wrk" in kinds and "strace-c" in kinds
    rps_line = next(x for x in (RUN1 / "wrk.txt").read_text().splitlines() if x.startswith("Requests/sec"))
    assert detail["headline"]["requests_per_sec"] == float(rps_line.split()[1])
    series = client.get(f"/api/runs/{run_id}/series").json()
    sy = next(s for s in series if s["role"] == "proxy" and s["key"] == "sy")
    data_rows = [ln for ln in (RUN1 / "vmstat.txt").read_text().splitlines() if ln.strip()[:1].isdigit()]
    assert sy["points"] == len(data_rows) - 1  # the since-boot row is not a sample
    data = client.get(f"/api/runs/{run_id}/series/data", params={"ids": [sy["id"]]}).json()["series"][0]
    # One sample a second, as the table was sampled.
    assert data["t"][1] - data["t"][0] == 1.0
    history = client.get(f"/api/projects/{slug}/experiments").json()
    assert history["items"][0]["name"] == "default" and history["items"][0]["run_count"] == 1

    again = client.post(f"/api/projects/{slug}/imports", json={"experiment": "default", "files": _files()})
    assert again.status_code == 200 and again.json()["duplicate"] is True and again.json()["run_id"] == run_id
    assert client.get(f"/api/projects/{slug}/experiments").json()["items"][0]["run_count"] == 1


def test_gzip_upload_as_base64_is_accepted(client: TestClient, project: dict[str, Any]) -> None:
    content = base64.b64encode(gzip.compress((RUN1 / "wrk.txt").read_bytes())).decode()
    r = client.post(f"/api/projects/{project['slug']}/imports/preview",
                    json={"files": [{"name": "wrk.txt.gz", "content": content, "encoding": "base64"}]})
    assert r.json()["files"][0]["kind"] == "wrk" and r.json()["files"][0]["ok"]


def test_bad_input_is_refused_with_the_file_and_the_problem(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    junk = base64.b64encode(bytes(range(256)) * 10).decode()
    r = client.post(f"/api/projects/{slug}/imports",
                    json={"experiment": "x", "files": [{"name": "junk.bin", "content": junk, "encoding": "base64"}]})
    assert r.status_code == 400 and "junk.bin" in r.json()["detail"]
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": "x", "files": [
        {"name": "wrk-as-vmstat.txt", "content": (RUN1 / "wrk.txt").read_text(), "kind": "vmstat"}]})
    assert r.status_code == 400
    assert "wrk-as-vmstat.txt" in r.json()["detail"] and "line" in r.json()["detail"]
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": "x", "files": [
        {"name": "empty.txt", "content": ""}]})
    assert r.status_code == 400
    assert client.get(f"/api/projects/{slug}/experiments").json()["total"] == 0


def test_a_nul_in_a_files_text_is_refused_naming_the_file_and_the_line(client: TestClient,
                                                                       project: dict[str, Any]) -> None:
    """A binary file read as text: the refusal says which file, which line and what it likely is, in words."""
    slug = project["slug"]
    vmstat = (RUN1 / "vmstat.txt").read_text().splitlines(keepends=True)
    broken = "".join(vmstat[:2]) + "\x00\x01ELF" + "".join(vmstat[2:])  # NUL on line 3
    files = [_files()[0], {"name": "vmstat.log", "content": broken, "role": "proxy"}]
    expected = ("file 2 (vmstat.log) contains a NUL byte (\\0) at line 3; perflab stores text — is this a "
                "binary file?")
    for route, body in (("imports/preview", {"files": files}), ("imports", {"experiment": "x", "files": files})):
        r = client.post(f"/api/projects/{slug}/{route}", json=body)
        assert r.status_code == 422, r.text
        [error] = r.json()["detail"]
        assert error == {"loc": ["body", "files"], "msg": expected, "type": "unstorable_value"}, error
    assert client.get(f"/api/projects/{slug}/experiments").json()["total"] == 0


def test_an_ingest_token_can_import_and_a_read_token_cannot(app: Any, client: TestClient,
                                                             project: dict[str, Any]) -> None:
    slug = project["slug"]
    body = {"experiment": "direct", "files": _files()[:1]}
    ingest = client.post(f"/api/projects/{slug}/tokens", json={"scopes": ["ingest"]}).json()["token"]
    read = client.post(f"/api/projects/{slug}/tokens", json={"scopes": ["read"]}).json()["token"]
    with TestClient(app) as agent:
        r = agent.post(f"/api/projects/{slug}/imports", json=body, headers={"Authorization": f"Bearer {read}"})
        assert r.status_code == 403
        r = agent.post(f"/api/projects/{slug}/imports", json=body, headers={"Authorization": f"Bearer {ingest}"})
        assert r.status_code == 201


def test_every_streaming_kind_imports_as_series(client: TestClient, project: dict[str, Any]) -> None:
    netqtop = FIXTURES / "netqtop"
    for path in sorted(netqtop.glob("*.txt")):
        r = client.post(f"/api/projects/{project['slug']}/imports",
                        json={"experiment": f"netqtop {path.stem}", "files": [
                            {"name": path.name, "content": path.read_text(), "kind": "netqtop", "role": "proxy"}]})
        assert r.status_code == 201, (path.name, r.text)
        series = client.get(f"/api/runs/{r.json()['run_id']}/series").json()
        metrics = {s["metric"] for s in series}
        text = path.read_text()
        assert {"tx.avg_size_bytes", "tx.packets_64-512"} <= metrics, (path.name, metrics)
        from perflab.parsers import parse

        if any(i["rx"]["queues"] for i in parse("netqtop", text)["intervals"]):
            assert "rx.avg_size_bytes" in metrics, path.name
        if "BPS" in text:
            assert "tx.bps" in metrics and "tx.pps" in metrics, path.name


def test_an_imports_statistics_equal_what_a_reparse_computes_from_storage(
    client: TestClient, project: dict[str, Any], session: Any
) -> None:
    # An import computes steady-state statistics and pidstat averages from the samples it holds; a
    # reparse streams the raw text again through live blocks, merges them and reads them back. Both
    # must give the same numbers, and the same samples.
    import uuid

    from perflab.ingest import service
    from perflab.runs.models import Run
    from perflab.series.service import read_points
    from sqlalchemy import text

    run1 = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1"
    files = [{"name": n, "content": (run1 / n).read_text(), "role": "proxy"} for n in ("vmstat.txt", "pidstat.txt")]
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": files})
    assert r.status_code == 201, r.text
    run_id = uuid.UUID(r.json()["run_id"])

    def state() -> tuple[Any, ...]:
        session.expire_all()
        stats = session.execute(text("SELECT key, role, stats FROM series WHERE run_id = :r ORDER BY key"),
                                {"r": run_id}).all()
        averages = session.execute(text("SELECT data FROM summary WHERE run_id = :r AND kind = 'pidstat-averages'"),
                                   {"r": run_id}).scalars().all()
        keys = session.execute(text("SELECT key, id FROM series WHERE run_id = :r"), {"r": run_id}).all()
        points = read_points(session, [(run_id, sid) for _, sid in keys])
        return [tuple(s) for s in stats], averages, sorted((k, points[(run_id, sid)]) for k, sid in keys)

    imported = state()
    assert len(imported[0]) > 30 and all(s[2].get("n") for s in imported[0]) and imported[1]
    service.reparse_run(session, run=session.get(Run, run_id))
    session.commit()
    assert state() == imported


def test_an_imported_run_is_dated_by_its_data_not_by_the_import(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": "default", "files": _files()})
    assert r.status_code == 201, r.text
    # vmstat -t's first stamp in the capture: three days before this machine's "now".
    first = next(ln for ln in (RUN1 / "vmstat.txt").read_text().splitlines() if ln.strip()[:1].isdigit())
    stamp = "T".join(first.split()[-2:])
    run = client.get(f"/api/runs/{r.json()['run_id']}").json()
    assert run["started_at"].startswith(stamp) and not run["created_at"].startswith(stamp[:10])
    history = client.get(f"/api/projects/{slug}/experiments").json()["items"][0]
    assert history["last_run_at"].startswith(stamp)
    listed = next(p for p in client.get("/api/projects").json() if p["slug"] == slug)
    assert listed["last_run_at"].startswith(stamp)
