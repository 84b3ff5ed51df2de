"""The nginx-proxy-buffers investigation loaded through the agent protocol, for every compare test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.compare.investigation import Investigation, load_with_testclient
from tests.conftest import login, make_user


@pytest.fixture
def investigation(app: Any, client: TestClient, project: dict[str, Any]) -> Investigation:
    return load_with_testclient(app, client, project["slug"])


@pytest.fixture
def small_investigation(app: Any, client: TestClient, project: dict[str, Any]) -> Investigation:
    """direct and default only: enough for the sharing and notes suites, half the loading time."""
    return load_with_testclient(app, client, project["slug"], experiments=("direct", "default"))


@pytest.fixture
def member(app: Any) -> Iterator[TestClient]:
    make_user("member@example.test", "another long passphrase", role="member")
    with TestClient(app) as c:
        yield login(c, "member@example.test", "another long passphrase")


@pytest.fixture
def bearer(app: Any) -> Callable[[str], TestClient]:
    def make(token: str) -> TestClient:
        c = TestClient(app)
        c.headers["Authorization"] = f"Bearer {token}"
        return c

    return make
