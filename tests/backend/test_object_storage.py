"""Artifacts in S3-compatible object storage (a real S3 API server: moto's), and the move both ways."""

from __future__ import annotations

import hashlib
import io
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.objectstore import MotoServer, keys_in


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    server = MotoServer(tmp_path_factory.mktemp("moto") / "moto.log").start()
    yield server
    server.stop()


@pytest.fixture
def bucket(moto: MotoServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from perflab.config import get_settings

    name = moto.make_bucket(f"perflab-{uuid.uuid4().hex[:8]}")
    for k, v in moto.env(name, prefix="team-a").items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()
    yield name
    get_settings.cache_clear()


def _agent_run(client: TestClient, token: str) -> str:
    run_id = str(uuid.uuid4())
    r = client.post("/api/agent/runs", json={"run_id": run_id, "experiment": "default", "wait_for_roles": []},
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text
    return run_id


def _upload(client: TestClient, token: str, run_id: str, body: bytes, name: str = "nginx.conf") -> int:
    r = client.post(f"/api/agent/runs/{run_id}/artifacts?kind=config&name={name}", content=body,
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text
    return int(r.json()["artifact_id"])


def test_an_upload_lands_in_the_bucket_and_downloads_from_it(
    client: TestClient, agent_token: str, moto: MotoServer, bucket: str
) -> None:
    body = b"worker_processes auto;\n" * 1000
    run_id = _agent_run(client, agent_token)
    artifact_id = _upload(client, agent_token, run_id, body)

    # The bytes are in the bucket under the prefix, not in the data directory.
    keys = keys_in(moto, bucket)
    assert len(keys) == 1 and keys[0].startswith("team-a/")
    from perflab.config import get_settings

    assert not any(p.is_file() for p in get_settings().artifacts_dir.rglob("*")) if get_settings().artifacts_dir.exists() else True
    r = client.get(f"/api/artifacts/{artifact_id}/download")
    assert r.status_code == 200 and r.content == body
    assert r.headers["content-length"] == str(len(body))


def test_a_large_body_goes_up_in_parts_and_streams_back_whole(
    bucket: str, moto: MotoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perflab.artifacts import storage

    # S3 refuses parts under 5 MiB but the last: 12 MiB in 5 MiB parts is three parts.
    monkeypatch.setattr(storage, "PART_BYTES", 5 * 1024 * 1024)
    data = os.urandom(12 * 1024 * 1024 + 123)
    seen: list[int] = []

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(data), 256 * 1024):
            seen.append(i)
            yield data[i:i + 256 * 1024]

    store = storage.get_storage()
    assert store.name == "s3"
    stored = store.put_stream(chunks())
    assert stored.size == len(data) and stored.sha256 == hashlib.sha256(data).hexdigest()
    head = moto.client().head_object(Bucket=bucket, Key=f"team-a/{stored.key}")
    # A multipart object's ETag ends in "-<parts>".
    assert head["ETag"].strip('"').endswith("-3") and head["ContentLength"] == len(data)

    out = bytearray()
    pieces = 0
    for piece in store.open_stream(stored.key):
        assert len(piece) <= storage.CHUNK_BYTES
        out += piece
        pieces += 1
    assert bytes(out) == data and pieces >= 12
    assert store.get(stored.key) == data


def test_a_failed_multipart_upload_leaves_no_parts_behind(bucket: str, moto: MotoServer,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from perflab.artifacts import storage

    monkeypatch.setattr(storage, "PART_BYTES", 5 * 1024 * 1024)

    def failing() -> Iterator[bytes]:
        yield os.urandom(6 * 1024 * 1024)
        raise OSError("the client went away")

    with pytest.raises(OSError, match="went away"):
        storage.get_storage().put_stream(failing())
    assert moto.client().list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    assert keys_in(moto, bucket) == []


def test_a_missing_object_is_a_404_naming_the_artifact(client: TestClient, agent_token: str, moto: MotoServer,
                                                       bucket: str) -> None:
    run_id = _agent_run(client, agent_token)
    artifact_id = _upload(client, agent_token, run_id, b"net.core.somaxconn = 4096\n")
    moto.client().delete_object(Bucket=bucket, Key=keys_in(moto, bucket)[0])
    r = client.get(f"/api/artifacts/{artifact_id}/download")
    assert r.status_code == 404 and f"artifact {artifact_id}" in r.json()["detail"]


def test_storage_migrate_copies_every_artifact_both_ways(
    client: TestClient, agent_token: str, moto: MotoServer, bucket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perflab.artifacts import cli
    from perflab.config import get_settings

    s3_env = moto.env(bucket, prefix="team-a")
    # A deployment on one machine: artifacts in the data directory.
    for k in s3_env:
        monkeypatch.delenv(k)
    get_settings.cache_clear()
    run_id = _agent_run(client, agent_token)
    bodies = {_upload(client, agent_token, run_id, f"sysctl {i}\n".encode() * (i + 1), name=f"f{i}"):
              f"sysctl {i}\n".encode() * (i + 1) for i in range(3)}
    local_files = [p for p in get_settings().artifacts_dir.rglob("*") if p.is_file()]
    assert len(local_files) == 3

    # Move to the bucket, switch the setting: every download still works, served from the bucket.
    for k, v in s3_env.items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()
    # As an operator types it.
    from perflab.cli import main

    assert main(["storage", "migrate", "--to", "s3"]) == 0
    assert len(keys_in(moto, bucket)) == 3
    # Run again: nothing to do (resumable after an interruption).
    assert cli.migrate(to="s3", out=io.StringIO())["present"] == 3
    for p in local_files:
        p.unlink()
    for artifact_id, body in bodies.items():
        assert client.get(f"/api/artifacts/{artifact_id}/download").content == body

    # And back to the data directory.
    assert cli.migrate(to="local", out=io.StringIO())["copied"] == 3
    for k in s3_env:
        monkeypatch.delenv(k)
    get_settings.cache_clear()
    for artifact_id, body in bodies.items():
        assert client.get(f"/api/artifacts/{artifact_id}/download").content == body


def test_migrate_refuses_bytes_that_do_not_match_their_checksum(
    client: TestClient, agent_token: str, moto: MotoServer, bucket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perflab.artifacts import cli
    from perflab.config import get_settings

    s3_env = moto.env(bucket, prefix="team-a")
    for k in s3_env:
        monkeypatch.delenv(k)
    get_settings.cache_clear()
    run_id = _agent_run(client, agent_token)
    _upload(client, agent_token, run_id, b"original bytes\n")
    [path] = [p for p in get_settings().artifacts_dir.rglob("*") if p.is_file()]
    Path(path).write_bytes(b"bit rot\n")
    for k, v in s3_env.items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()
    out = io.StringIO()
    counts: dict[str, Any] = cli.migrate(to="s3", out=out)
    assert counts["mismatch"] == 1 and counts["copied"] == 0
    assert "do not match the recorded sha256" in out.getvalue()
    assert keys_in(moto, bucket) == []


def test_an_upload_to_an_unknown_run_leaves_no_object(client: TestClient, agent_token: str, moto: MotoServer,
                                                      bucket: str) -> None:
    # The bytes stream to the bucket before the run is looked up (no connection waits on a slow
    # upload): a refused upload removes them again.
    r = client.post(f"/api/agent/runs/{uuid.uuid4()}/artifacts?kind=raw&name=x", content=b"x" * 100_000,
                    headers={"Authorization": f"Bearer {agent_token}"})
    assert r.status_code == 404, r.text
    assert keys_in(moto, bucket) == []
