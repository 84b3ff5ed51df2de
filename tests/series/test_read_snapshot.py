"""A series read while its stream is compacted sees every sample (issue 21).

Compaction moves a closed stream's blocks into chunks in one transaction. The read took chunks, then
blocks, in two statements under READ COMMITTED: a compaction committing between them left it with
the chunks from before (none) and the blocks from after (none): an empty chart.
"""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event, text

from tests.conftest import FIXTURES

VMSTAT = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "vmstat.txt"


def test_a_read_racing_the_compaction_of_its_stream_loses_nothing(
    client: TestClient, project: dict[str, Any], session: Any
) -> None:
    from perflab.db import new_session
    from perflab.series.service import compact, read_points, write_block

    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": [
        {"name": "vmstat.txt", "content": VMSTAT.read_text(), "role": "proxy"}]})
    assert r.status_code == 201, r.text
    run_id = uuid.UUID(r.json()["run_id"])
    rows = session.execute(text("SELECT id, stream_id FROM series WHERE run_id = :r"), {"r": run_id}).all()
    stream_id, sids = rows[0].stream_id, [row.id for row in rows]
    keys = [(run_id, sid) for sid in sids]
    expected = read_points(session, keys)
    assert sum(len(t) for t, _ in expected.values()) > 100
    # As a live stream leaves it before its close: samples in blocks only.
    session.execute(text("DELETE FROM series_chunk WHERE run_id = :r"), {"r": run_id})
    write_block(session, run_id=run_id, stream_id=stream_id, block=0,
                series=[(sid, t, v) for (_, sid), (t, v) in expected.items()])
    session.commit()

    compacted = []

    def compact_now(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # The stream closes right after the reader's first look at the chunks.
        if "series_chunk" in statement and not compacted:
            with new_session() as other:
                compacted.append(compact(other, run_id=run_id, stream_id=stream_id, series_ids=sids))
                other.commit()

    with new_session() as reader:
        conn = reader.connection()
        event.listen(conn, "after_cursor_execute", compact_now)
        try:
            got = read_points(reader, keys)
        finally:
            event.remove(conn, "after_cursor_execute", compact_now)
    assert compacted == [len(sids)], "the compaction ran during the read"
    assert got == expected
