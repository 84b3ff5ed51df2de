"""Where artifact bytes live. Keys are server-generated uuid4 hex strings, never user input.

Two backends behind one interface: the data directory (one machine, the default) and S3-compatible
object storage (MinIO, Ceph RGW, AWS S3), selected when PERFLAB_S3_BUCKET is set, so that several
servers on one database serve every artifact whichever of them received it. The database keeps
only the key, so moving between backends is a copy of the objects under the same keys
(`perflab storage migrate`).

Bodies stream both ways: `put_stream` takes an iterator of chunks (a large body goes up as an S3
multipart upload, a part at a time) and `open_stream` yields chunks; no whole-file copy in memory.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from perflab.config import Settings, get_settings

log = logging.getLogger(__name__)

_KEY = re.compile(r"^[0-9a-f]{32}$")
# Reads and writes move this much at a time.
CHUNK_BYTES = 1024 * 1024
# S3 multipart: parts of this size (S3's minimum is 5 MiB but for the last); a body that fits in
# one part goes up as a single PutObject.
PART_BYTES = 8 * 1024 * 1024


class ArtifactMissing(OSError):
    """The key names no stored object (deleted, or stored on another backend than this one)."""


@dataclass(frozen=True)
class Stored:
    key: str
    sha256: str
    size: int


def check_key(key: str) -> str:
    # Defence in depth: keys are generated here, but refuse anything that isn't one.
    if not _KEY.fullmatch(key):
        raise ValueError("invalid storage key")
    return key


def _chunks_of(data: bytes) -> Iterator[bytes]:
    view = memoryview(data)
    for i in range(0, len(data), CHUNK_BYTES):
        yield bytes(view[i : i + CHUNK_BYTES])


def read_file_chunks(fh: Any, size: int = CHUNK_BYTES) -> Iterator[bytes]:
    """A binary file object as chunks, for `put_stream`."""
    while chunk := fh.read(size):
        yield chunk


class Storage(Protocol):
    name: str

    def put(self, data: bytes) -> tuple[str, str]: ...
    def put_stream(self, chunks: Iterable[bytes], *, key: str | None = None) -> Stored: ...
    def get(self, key: str) -> bytes: ...
    def open_stream(self, key: str) -> Iterator[bytes]: ...
    def exists(self, key: str) -> bool: ...
    def delete(self, key: str) -> None: ...


class FilesystemStorage:
    name = "local"

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def _path(self, key: str) -> Path:
        check_key(key)
        path = (self.root / key[:2] / key).resolve()
        if not path.is_relative_to(self.root):
            raise ValueError("invalid storage key")
        return path

    def put(self, data: bytes) -> tuple[str, str]:
        """Store bytes; returns (key, sha256)."""
        stored = self.put_stream(_chunks_of(data))
        return stored.key, stored.sha256

    def put_stream(self, chunks: Iterable[bytes], *, key: str | None = None) -> Stored:
        """Write chunks to a temporary file, then rename: a reader never sees half an object."""
        key = check_key(key) if key else uuid.uuid4().hex
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{key}.{uuid.uuid4().hex[:8]}.tmp")
        sha = hashlib.sha256()
        size = 0
        try:
            with open(tmp, "wb") as fh:
                for chunk in chunks:
                    sha.update(chunk)
                    size += len(chunk)
                    fh.write(chunk)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return Stored(key, sha.hexdigest(), size)

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError as exc:
            raise ArtifactMissing(f"no stored object {key}") from exc

    def open_stream(self, key: str) -> Iterator[bytes]:
        """Opens now (a missing object raises here, before a response starts); reads as iterated."""
        try:
            fh = open(self._path(key), "rb")  # noqa: SIM115 - closed by the generator
        except FileNotFoundError as exc:
            raise ArtifactMissing(f"no stored object {key}") from exc

        def gen() -> Iterator[bytes]:
            with fh:
                yield from read_file_chunks(fh)

        return gen()

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)


class S3Storage:
    """One bucket (and an optional key prefix) on any S3-compatible server, through boto3."""

    name = "s3"

    def __init__(self, *, endpoint: str | None, bucket: str, access_key_id: str | None,
                 secret_access_key: str | None, region: str | None, prefix: str = "") -> None:
        import boto3  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]

        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        # Path-style addressing: MinIO and Ceph RGW are usually reached by one host name without
        # per-bucket DNS; AWS S3 answers path-style as well. Retries in "standard" mode cover the
        # throttling answers (503 SlowDown) that object stores give under load.
        self.client: Any = boto3.session.Session().client(
            "s3", endpoint_url=endpoint or None, region_name=region or None,
            aws_access_key_id=access_key_id or None, aws_secret_access_key=secret_access_key or None,
            config=Config(s3={"addressing_style": "path"}, retries={"mode": "standard", "max_attempts": 5},
                          connect_timeout=5, read_timeout=60, max_pool_connections=32),
        )

    def _name(self, key: str) -> str:
        return self.prefix + check_key(key)

    def put(self, data: bytes) -> tuple[str, str]:
        stored = self.put_stream(_chunks_of(data))
        return stored.key, stored.sha256

    def put_stream(self, chunks: Iterable[bytes], *, key: str | None = None) -> Stored:
        """One PutObject for a body of at most one part, else a multipart upload a part at a time
        (aborted on any failure so no orphan parts are billed)."""
        key = check_key(key) if key else uuid.uuid4().hex
        name = self._name(key)
        sha = hashlib.sha256()
        size = 0
        buf = bytearray()
        upload_id: str | None = None
        parts: list[dict[str, Any]] = []
        try:
            for chunk in chunks:
                sha.update(chunk)
                size += len(chunk)
                buf += chunk
                while len(buf) >= PART_BYTES:
                    if upload_id is None:
                        upload_id = self.client.create_multipart_upload(Bucket=self.bucket, Key=name)["UploadId"]
                    part, buf = bytes(buf[:PART_BYTES]), buf[PART_BYTES:]
                    n = len(parts) + 1
                    etag = self.client.upload_part(Bucket=self.bucket, Key=name, UploadId=upload_id,
                                                   PartNumber=n, Body=part)["ETag"]
                    parts.append({"ETag": etag, "PartNumber": n})
            if upload_id is None:
                self.client.put_object(Bucket=self.bucket, Key=name, Body=bytes(buf))
            else:
                if buf or not parts:
                    n = len(parts) + 1
                    etag = self.client.upload_part(Bucket=self.bucket, Key=name, UploadId=upload_id,
                                                   PartNumber=n, Body=bytes(buf))["ETag"]
                    parts.append({"ETag": etag, "PartNumber": n})
                self.client.complete_multipart_upload(Bucket=self.bucket, Key=name, UploadId=upload_id,
                                                      MultipartUpload={"Parts": parts})
        except BaseException:
            if upload_id is not None:
                try:
                    self.client.abort_multipart_upload(Bucket=self.bucket, Key=name, UploadId=upload_id)
                except Exception:
                    log.warning("object storage: could not abort the multipart upload of %s", name, exc_info=True)
            raise
        return Stored(key, sha.hexdigest(), size)

    def _open(self, key: str) -> Any:
        from botocore.exceptions import ClientError  # type: ignore[import-untyped]

        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._name(key))["Body"]
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                raise ArtifactMissing(f"no stored object {key}") from exc
            raise OSError(f"object storage: {exc}") from exc

    def get(self, key: str) -> bytes:
        body = self._open(key)
        try:
            return bytes(body.read())
        finally:
            body.close()

    def open_stream(self, key: str) -> Iterator[bytes]:
        body = self._open(key)

        def gen() -> Iterator[bytes]:
            try:
                yield from body.iter_chunks(CHUNK_BYTES)
            finally:
                body.close()

        return gen()

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=self.bucket, Key=self._name(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return False
            raise OSError(f"object storage: {exc}") from exc
        return True

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self._name(key))


_cache: dict[tuple[Any, ...], Storage] = {}
_cache_lock = threading.Lock()


def local_storage(settings: Settings | None = None) -> FilesystemStorage:
    return FilesystemStorage((settings or get_settings()).artifacts_dir)


def s3_storage(settings: Settings | None = None) -> S3Storage:
    """The configured bucket; one client per configuration (building a boto3 client takes ~0.1 s)."""
    s = settings or get_settings()
    if not s.s3_bucket:
        raise ValueError("object storage is not configured: set PERFLAB_S3_BUCKET (and PERFLAB_S3_ENDPOINT, ...)")
    ident = ("s3", s.s3_endpoint, s.s3_bucket, s.s3_access_key_id, s.s3_secret_access_key, s.s3_region, s.s3_prefix)
    with _cache_lock:
        store = _cache.get(ident)
        if store is None:
            store = _cache[ident] = S3Storage(
                endpoint=s.s3_endpoint, bucket=s.s3_bucket, access_key_id=s.s3_access_key_id,
                secret_access_key=s.s3_secret_access_key, region=s.s3_region, prefix=s.s3_prefix)
    assert isinstance(store, S3Storage)
    return store


def get_storage() -> Storage:
    """Object storage when a bucket is configured, else the data directory."""
    return storage_for(get_settings())


def storage_for(settings: Settings) -> Storage:
    """:func:`get_storage` of given settings (a worker process is handed its server's)."""
    if settings.s3_bucket:
        return s3_storage(settings)
    return local_storage(settings)
