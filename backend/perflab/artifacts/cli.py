"""`perflab storage migrate --to s3|local`: copy every artifact's bytes to the other backend.

Keys stay the same (the database holds only the key), so after the copy switching the setting
(PERFLAB_S3_BUCKET set or not) is the whole move. Idempotent and resumable: an object already at the
destination with the recorded size is skipped; each copy is checked against the recorded sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterator
from typing import Any

from perflab.artifacts.storage import ArtifactMissing, Storage, local_storage, s3_storage


def migrate(*, to: str, out: Any = None) -> dict[str, int]:
    # Looked up now, not when the module was imported: that stream may be closed since (pytest swaps it).
    out = out if out is not None else sys.stdout
    from sqlalchemy import select

    from perflab.artifacts.models import Artifact
    from perflab.db import unit_of_work

    source: Storage
    dest: Storage
    if to == "s3":
        source, dest = local_storage(), s3_storage()
    elif to == "local":
        source, dest = s3_storage(), local_storage()
    else:
        raise ValueError("--to must be s3 or local")
    with unit_of_work() as session:
        rows = session.execute(select(Artifact.id, Artifact.storage_key, Artifact.sha256, Artifact.size_bytes)
                               .order_by(Artifact.id)).all()
    counts = {"copied": 0, "present": 0, "missing": 0, "mismatch": 0}
    for artifact_id, key, sha, size in rows:
        if dest.exists(key):
            counts["present"] += 1
            continue
        try:
            chunks = source.open_stream(key)
        except ArtifactMissing:
            counts["missing"] += 1
            out.write(f"artifact {artifact_id}: no bytes at the source ({source.name}), skipped\n")
            continue
        digest = hashlib.sha256()

        def hashed(it: Iterator[bytes], digest: Any = digest) -> Iterator[bytes]:
            for chunk in it:
                digest.update(chunk)
                yield chunk

        stored = dest.put_stream(hashed(chunks), key=key)
        if stored.sha256 != sha or stored.size != size:
            # Never leave a corrupt copy where a server would serve it.
            dest.delete(key)
            counts["mismatch"] += 1
            out.write(f"artifact {artifact_id}: source bytes do not match the recorded sha256, not copied\n")
            continue
        counts["copied"] += 1
    out.write(f"{to}: {counts['copied']} copied, {counts['present']} already there, "
              f"{counts['missing']} missing at the source, {counts['mismatch']} not matching their sha256\n")
    return counts


def _migrate(args: argparse.Namespace) -> int:
    counts = migrate(to=args.to)
    return 1 if counts["missing"] or counts["mismatch"] else 0


def register(sub: Any) -> None:
    storage = sub.add_parser("storage", help="artifact storage").add_subparsers(dest="storage_command", required=True)
    s = storage.add_parser("migrate", help="copy every artifact's bytes to S3 (--to s3) or the data directory")
    s.add_argument("--to", choices=["s3", "local"], required=True)
    s.set_defaults(func=_migrate)
