"""Where artifact bytes live. Keys are server-generated uuid4 hex strings, never user input.

Filesystem by default (under the data directory); the interface is small so an S3-compatible store
can replace it when several servers share one database.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from pathlib import Path

from perflab.config import get_settings

_KEY = re.compile(r"^[0-9a-f]{32}$")


class FilesystemStorage:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def _path(self, key: str) -> Path:
        # Defence in depth: keys are generated here, but refuse anything that isn't one.
        if not _KEY.fullmatch(key):
            raise ValueError("invalid storage key")
        path = (self.root / key[:2] / key).resolve()
        if not path.is_relative_to(self.root):
            raise ValueError("invalid storage key")
        return path

    def put(self, data: bytes) -> tuple[str, str]:
        """Store bytes; returns (key, sha256)."""
        key = uuid.uuid4().hex
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return key, hashlib.sha256(data).hexdigest()

    def get(self, key: str) -> bytes:
        return self._path(key).read_bytes()

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)


def get_storage() -> FilesystemStorage:
    return FilesystemStorage(get_settings().artifacts_dir)
