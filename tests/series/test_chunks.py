"""Series chunks in PostgreSQL: a live series' chunks merge into one, exactly; charts are downsampled."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from perflab.series.service import chunk_row, compact, downsample, read_points, write_chunks
from sqlalchemy import text

from tests.conftest import FIXTURES

VMSTAT = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "vmstat.txt"


def test_compaction_merges_a_live_series_into_one_exact_chunk(
    client: TestClient, project: dict[str, Any], session: Any
) -> None:
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": [
        {"name": "vmstat.txt", "content": VMSTAT.read_text(), "role": "proxy"}]})
    assert r.status_code == 201, r.text
    run_id = uuid.UUID(r.json()["run_id"])
    sid = session.execute(text("SELECT id FROM series WHERE run_id = :r AND key = 'cs'"), {"r": run_id}).scalar_one()
    times, values = read_points(session, [(run_id, sid)])[(run_id, sid)]
    assert len(times) > 6
    # As a live run leaves it: a chunk per batch, the last one re-sending the final second with a new value.
    session.execute(text("DELETE FROM series_chunk WHERE run_id = :r AND series_id = :s"), {"r": run_id, "s": sid})
    write_chunks(session, [chunk_row(run_id, sid, 0, times[:5], values[:5]),
                           chunk_row(run_id, sid, 5, times[5:], values[5:]),
                           chunk_row(run_id, sid, len(times), times[-1:], [values[-1] + 1.5])])
    assert compact(session, run_id=run_id, series_ids=[sid]) == 1
    rows = session.execute(text("SELECT chunk, n FROM series_chunk WHERE run_id = :r AND series_id = :s"),
                           {"r": run_id, "s": sid}).all()
    assert [tuple(x) for x in rows] == [(0, len(times))]
    assert read_points(session, [(run_id, sid)])[(run_id, sid)] == (times, [*values[:-1], values[-1] + 1.5])
    # A second compaction finds nothing to do.
    assert compact(session, run_id=run_id, series_ids=[sid]) == 0


def test_downsampling_averages_equal_time_buckets() -> None:
    t = [float(i) for i in range(1000)]
    v = [float(i % 10) for i in range(1000)]
    dt, dv = downsample(t, v, 100)
    assert len(dt) <= 100 and dt[0] < 10 and dt[-1] > 990
    # Each bucket spans ~10 seconds of a 0..9 saw: its mean is ~4.5, never a raw extreme (the last
    # bucket holds only the last sample, as the SQL version did).
    assert all(3 <= x <= 6 for x in dv[:-1]) and dv[-1] == 9.0
    assert downsample(t[:50], v[:50], 100) == (t[:50], v[:50])
