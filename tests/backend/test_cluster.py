"""What several server processes share through PostgreSQL: rate-limit counts, the sweep's runner,
change notices for live pages."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine


def test_two_limiters_of_one_name_enforce_one_count(db_engine: Engine) -> None:
    # Two server processes each build their own limiter object: one count between them.
    from perflab.errors import TooManyRequests
    from perflab.ratelimit import MissLimiter

    a = MissLimiter(max_misses=4, window_s=60, what="logins")
    b = MissLimiter(max_misses=4, window_s=60, what="logins")
    for limiter in (a, b, a, b):
        limiter.check("203.0.113.9")
        limiter.miss("203.0.113.9")
    with pytest.raises(TooManyRequests) as exc:
        b.check("203.0.113.9")
    assert 0 < int(exc.value.headers["Retry-After"]) <= 61
    assert a.blocked_for("203.0.113.9") > 0
    # Another address, and another limiter name, are counted apart.
    assert a.blocked_for("203.0.113.10") == 0
    assert MissLimiter(max_misses=4, window_s=60, what="share-link attempts").blocked_for("203.0.113.9") == 0


def test_misses_leave_the_window_and_expired_keys_are_deleted(db_engine: Engine) -> None:
    from perflab import ratelimit
    from perflab.ratelimit import MissLimiter

    lim = MissLimiter(max_misses=2, window_s=3, what="x")
    for i in range(20):
        lim.miss(f"k{i}")
        lim.miss(f"k{i}")
    done = time.monotonic()
    assert lim.blocked_for("k19") > 0 and len(lim) == 20
    time.sleep(max(0.0, done + 3.3 - time.monotonic()))
    assert lim.blocked_for("k19") == 0
    assert ratelimit.prune_expired() == 20 and len(lim) == 0


def test_a_key_keeps_at_most_its_limit_of_misses(db_engine: Engine) -> None:
    # A flood of misses on one key does not grow its row.
    from perflab.ratelimit import MissLimiter

    lim = MissLimiter(max_misses=3, window_s=60, what="flood")
    for _ in range(40):
        lim.miss("198.51.100.1")
    with db_engine.connect() as conn:
        assert conn.scalar(text("SELECT cardinality(misses) FROM rate_limit_miss")) == 3


def test_one_process_of_the_cluster_runs_the_sweep_and_another_takes_over(db_engine: Engine) -> None:
    from perflab.cluster.leader import Leadership

    key = 0x7E57_0001
    first, second = Leadership(key), Leadership(key)
    try:
        assert first.held() is True
        assert second.held() is False
        assert first.held() is True  # kept, round after round
        first.release()  # the runner stops (or dies: its connection closes the same way)
        assert second.held() is True
        assert first.held() is False
    finally:
        first.release()
        second.release()


def test_a_live_feed_wakes_on_a_commit_elsewhere_without_polling(db_engine: Engine) -> None:
    # The feed recomputes when PostgreSQL notifies a change of its run, not once a second per viewer.
    from perflab.cluster import live

    run_id = uuid.uuid4()
    calls: list[float] = []
    state: dict[str, Any] = {"n": 0}

    def snapshot(_: uuid.UUID) -> dict[str, Any]:
        calls.append(time.monotonic())
        return {"n": state["n"]}

    async def scenario() -> tuple[float, int, int]:
        hub = live.Hub(snapshot)
        try:
            async with hub.watch(run_id) as feed, hub.watch(run_id) as feed2:
                assert feed is feed2  # two viewers, one feed
                while not hub.listening.is_set() or feed.version == 0:
                    await asyncio.sleep(0.05)
                version = feed.version
                await asyncio.sleep(1.5)
                quiet = len(calls)
                state["n"] = 1
                t0 = time.monotonic()
                # Any server committing a change to the run: the trigger sends the notice.
                await asyncio.to_thread(_notify, db_engine, run_id)
                assert await feed.changed_since(version, 3.0)
                return time.monotonic() - t0, quiet, feed.version
        finally:
            hub.close()

    woke_after, quiet_calls, version = asyncio.run(scenario())
    assert woke_after < 1.0, woke_after
    # While nothing changed, two viewers for 1.5 s cost at most the first snapshot and the reconnect look.
    assert quiet_calls <= 3
    assert version == 2


def _notify(engine: Engine, run_id: uuid.UUID) -> None:
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_notify('perflab_run', :r)"), {"r": str(run_id)})


def test_the_triggers_notify_a_change_of_a_run_and_its_streams(client: Any, agent_token: str,
                                                                db_engine: Engine) -> None:
    import psycopg
    from perflab.cluster import pg

    with psycopg.connect(pg.conninfo(), autocommit=True) as conn:
        conn.execute("LISTEN perflab_run")
        run_id = str(uuid.uuid4())
        r = client.post("/api/agent/runs", json={"run_id": run_id, "experiment": "default", "wait_for_roles": []},
                        headers={"Authorization": f"Bearer {agent_token}"})
        assert r.status_code == 201, r.text
        payloads = [n.payload for n in conn.notifies(timeout=2.0, stop_after=1)]
        assert payloads == [run_id]
