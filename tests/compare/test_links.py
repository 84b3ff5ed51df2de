"""Compare links survive renames: ids in new links, old names still resolve."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.compare.investigation import Investigation


def test_a_renamed_experiments_old_name_and_its_id_still_open_the_comparison(
    client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    items = client.get(f"/api/projects/{slug}/experiments").json()["items"]
    ids = {i["name"]: i["id"] for i in items}
    r = client.patch(f"/api/experiments/{ids['default']}", json={"name": "proxy default buffers"})
    assert r.status_code == 200, r.text

    def compare(*refs: str) -> Any:
        return client.get(f"/api/projects/{slug}/compare", params={"baseline": refs[0], "experiments": refs[1:]})

    by_old_name = compare("direct", "default")
    assert by_old_name.status_code == 200, by_old_name.text
    doc = by_old_name.json()
    assert doc["experiments"] == ["direct", "proxy default buffers"]
    assert [c["id"] for c in doc["columns"]] == [ids["direct"], ids["default"]]
    by_id = compare(str(ids["direct"]), str(ids["default"])).json()
    assert by_id["experiments"] == doc["experiments"]
    # A current name wins over a former one: a new experiment may take the freed name.
    assert client.post(f"/api/projects/{slug}/experiments", json={"name": "default"}).status_code == 201
    assert compare("direct", "default").json()["experiments"] == ["direct", "default"]
    assert compare("direct", "nope").status_code == 404
