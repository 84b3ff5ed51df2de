"""docker-compose.yml for a team server: PostgreSQL with a volume, perflab on it, health checks."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_compose_file_defines_a_team_server() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"postgres", "perflab"} <= set(services)
    pg, app = services["postgres"], services["perflab"]
    assert any(v.startswith("pgdata:") for v in pg["volumes"]) and "pgdata" in compose["volumes"]
    assert "healthcheck" in pg and "healthcheck" in app
    assert app["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "@postgres:5432/" in app["environment"]["PERFLAB_DATABASE_URL"]
    # No default credentials: the passwords must be supplied by whoever starts it.
    assert ":?" in pg["environment"]["POSTGRES_PASSWORD"]
    assert ":?" in app["environment"]["PERFLAB_ADMIN_PASSWORD"]
    # `perflab serve` migrates before it listens.
    assert "serve" in (ROOT / "Dockerfile").read_text()
    # Where the docker client has the compose plugin, it must accept the file too.
    docker = shutil.which("docker")
    has_compose = docker is not None and subprocess.run(
        [docker, "compose", "version"], capture_output=True
    ).returncode == 0
    if not has_compose:
        return
    out = subprocess.run(
        ["docker", "compose", "-f", str(ROOT / "docker-compose.yml"), "config", "--quiet"],
        capture_output=True, text=True,
        env={"POSTGRES_PASSWORD": "x" * 16, "PERFLAB_ADMIN_PASSWORD": "y" * 16, "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
