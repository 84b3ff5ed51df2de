"""Series chunks and live blocks in PostgreSQL: a live stream's blocks merge into one chunk per series, exactly;
charts are downsampled."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from perflab.series.service import chunk_row, compact, downsample, read_points, write_block, write_chunks
from sqlalchemy import text

from tests.conftest import FIXTURES

VMSTAT = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "vmstat.txt"


def test_compaction_merges_a_live_streams_blocks_into_one_exact_chunk_per_series(
    client: TestClient, project: dict[str, Any], session: Any
) -> None:
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": [
        {"name": "vmstat.txt", "content": VMSTAT.read_text(), "role": "proxy"}]})
    assert r.status_code == 201, r.text
    run_id = uuid.UUID(r.json()["run_id"])
    rows = session.execute(text("SELECT id, key, stream_id FROM series WHERE run_id = :r"), {"r": run_id}).all()
    stream_id = rows[0].stream_id
    sids = [row.id for row in rows]
    cs = next(row.id for row in rows if row.key == "cs")
    before = read_points(session, [(run_id, sid) for sid in sids])
    times, values = before[(run_id, cs)]
    assert len(times) > 6
    # As a live run leaves it: a block per batch holding every series of the stream, the last one
    # re-sending the final second of `cs` with a new value.
    session.execute(text("DELETE FROM series_chunk WHERE run_id = :r"), {"r": run_id})
    write_block(session, run_id=run_id, stream_id=stream_id, block=0,
                series=[(sid, t[:5], v[:5]) for (_, sid), (t, v) in before.items()])
    write_block(session, run_id=run_id, stream_id=stream_id, block=100,
                series=[(sid, t[5:], v[5:]) for (_, sid), (t, v) in before.items()])
    write_block(session, run_id=run_id, stream_id=stream_id, block=200, series=[(cs, times[-1:], [values[-1] + 1.5])])
    expected = {**before, (run_id, cs): (times, [*values[:-1], values[-1] + 1.5])}
    # Live: the page reads the blocks.
    assert read_points(session, [(run_id, sid) for sid in sids]) == expected
    assert compact(session, run_id=run_id, stream_id=stream_id, series_ids=sids) == len(sids)
    chunks = session.execute(text("SELECT series_id, chunk, n FROM series_chunk WHERE run_id = :r"),
                             {"r": run_id}).all()
    assert sorted((c.series_id, c.chunk, c.n) for c in chunks) == sorted(
        (sid, 0, len(t)) for (_, sid), (t, _) in expected.items())
    assert session.execute(text("SELECT count(*) FROM series_block WHERE run_id = :r"), {"r": run_id}).scalar() == 0
    assert read_points(session, [(run_id, sid) for sid in sids]) == expected
    # A second compaction finds nothing to do.
    assert compact(session, run_id=run_id, stream_id=stream_id, series_ids=sids) == 0


def test_compaction_merges_several_chunks_of_a_series(
    client: TestClient, project: dict[str, Any], session: Any
) -> None:
    # Chunks written by the previous live path (a chunk per batch) still merge.
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": [
        {"name": "vmstat.txt", "content": VMSTAT.read_text(), "role": "proxy"}]})
    run_id = uuid.UUID(r.json()["run_id"])
    sid, stream_id = session.execute(text("SELECT id, stream_id FROM series WHERE run_id = :r AND key = 'cs'"),
                                     {"r": run_id}).one()
    times, values = read_points(session, [(run_id, sid)])[(run_id, sid)]
    session.execute(text("DELETE FROM series_chunk WHERE run_id = :r AND series_id = :s"), {"r": run_id, "s": sid})
    write_chunks(session, [chunk_row(run_id, sid, 0, times[:5], values[:5]),
                           chunk_row(run_id, sid, 5, times[5:], values[5:])])
    assert compact(session, run_id=run_id, stream_id=stream_id, series_ids=[sid]) == 1
    assert read_points(session, [(run_id, sid)])[(run_id, sid)] == (times, values)
    assert compact(session, run_id=run_id, stream_id=stream_id, series_ids=[sid]) == 0


def test_downsampling_averages_equal_time_buckets() -> None:
    t = [float(i) for i in range(1000)]
    v = [float(i % 10) for i in range(1000)]
    dt, dv = downsample(t, v, 100)
    assert len(dt) <= 100 and dt[0] < 10 and dt[-1] > 990
    # Each bucket spans ~10 seconds of a 0..9 saw: its mean is ~4.5, never a raw extreme (the last
    # bucket holds only the last sample, as the SQL version did).
    assert all(3 <= x <= 6 for x in dv[:-1]) and dv[-1] == 9.0
    assert downsample(t[:50], v[:50], 100) == (t[:50], v[:50])
