"""Fixtures for the agent tests: a fake server per test, and a check that the token leaked nowhere."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.fakeserver import FakeServer
from tests.agent.helpers import AGENTS

# In-process tests import the agent package from the source tree.
sys.path.insert(0, str(AGENTS))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[FakeServer]:
    """A fake perflab server. After the test: the token appears in no request (URL, headers other
    than Authorization, body), no agent log or output, and no file the agent wrote."""
    with FakeServer() as fake:
        yield fake
        leaks = [r.method + " " + r.path for r in fake.recorded() if fake.token in r.text()]
        assert not leaks, f"token sent in: {leaks}"
        for path in tmp_path.rglob("*"):
            if path.is_file() and path.stat().st_size < 50_000_000:
                assert fake.token.encode() not in path.read_bytes(), f"token found in {path}"
