"""The `perflab` admin command: serve, migrate, users, projects, tokens, parse, and friends."""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from perflab import __version__


def _alembic_config() -> Any:
    from alembic.config import Config

    root = Path(__file__).resolve().parents[2]
    cfg = Config(str(root / "alembic.ini"))
    cfg.set_main_option("script_location", str(root / "migrations"))
    return cfg


def migrate(url: str | None = None, revision: str = "head") -> None:
    from alembic import command

    cfg = _alembic_config()
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(cfg, revision)


def _lock_data_dir(data_dir: Path) -> Any:
    """One server per data directory: a second `make run` says so instead of sharing the files."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fh = open(data_dir / "serve.lock", "a+")  # noqa: SIM115 - held for the life of the process
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        pid = fh.read().strip() or "?"
        sys.stderr.write(
            f"perflab is already running with data directory {data_dir} (pid {pid}).\n"
            "Stop it first, or set PERFLAB_HOME to another directory.\n"
        )
        sys.exit(1)
    fh.seek(0)
    fh.truncate()
    fh.write(str(os.getpid()))
    fh.flush()
    return fh


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from perflab import db
    from perflab.auth import service as auth_service
    from perflab.config import get_settings

    settings = get_settings()
    # SIGTERM must unwind through Python (uvicorn re-raises it after its graceful shutdown) so the
    # embedded PostgreSQL is stopped on the way out instead of being left running.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    lock = _lock_data_dir(settings.data_dir) if not settings.database_url else None
    settings.resolved_secret_key()
    if not settings.database_url:
        orphan = db.orphan_postmaster(settings.data_dir / "pgdata")
        if orphan is not None:
            print(f"perflab: adopting the embedded PostgreSQL (pid {orphan}) left running by a server that "
                  "was killed; it stops with this one", flush=True)
    url = db.database_url(settings)
    if not settings.database_url:
        print(f"perflab: embedded PostgreSQL in {settings.data_dir / 'pgdata'}", flush=True)
    migrate(url)
    with db.unit_of_work() as session:
        generated = auth_service.bootstrap_admin(
            session, email=settings.admin_email, password=settings.admin_password
        )
    host = args.host or settings.host
    port = args.port or settings.port
    print(f"perflab {__version__} listening on http://{host}:{port}", flush=True)
    if generated:
        email, password = generated
        print(
            f"\n  First start: created admin {email} with password {password}\n"
            "  (shown once; set PERFLAB_ADMIN_EMAIL/PERFLAB_ADMIN_PASSWORD to choose them)\n",
            flush=True,
        )
    from perflab import server

    workers = args.workers
    if workers < 1:
        sys.stderr.write("perflab: --workers must be at least 1\n")
        return 2
    if workers > 1:
        # Worker processes build the app themselves (by import string) and find the database here,
        # the embedded one included; the sweep, rate limits and live pages are shared through it.
        os.environ["PERFLAB_DATABASE_URL"] = url
        print(f"perflab: {workers} worker processes", flush=True)
    from perflab.main import serve_app

    trusted = settings.trusted_proxy_list()
    config = uvicorn.Config(
        "perflab.main:serve_app" if workers > 1 else serve_app(), factory=workers > 1, workers=workers,
        host=host, port=port, log_level="info", access_log=False,
        # uvicorn believes X-Forwarded-For from 127.0.0.1 by default: only configured proxies are.
        proxy_headers=bool(trusted), forwarded_allow_ips=trusted or [],
        # h11 with a bounded header block; HeaderLimitMiddleware caps the count.
        http="h11", h11_max_incomplete_event_size=settings.max_request_header_bytes,
        # Waiting requests end on their own at shutdown (perflab.shutdown); this bounds the rest.
        timeout_graceful_shutdown=3,
    )
    try:
        server.run(config)
    finally:
        db.stop_embedded()
        del lock
    return 0


def _exit_on_signal(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def cmd_worker(args: argparse.Namespace) -> int:
    """A dedicated parse worker: claims and parses pending streams until SIGTERM/SIGINT
    (ingest/workers.py). Needs PERFLAB_DATABASE_URL: the server's database, not an embedded one."""
    import threading

    from perflab.config import get_settings
    from perflab.ingest import workers

    if not get_settings().database_url:
        sys.stderr.write("perflab: `perflab worker` needs PERFLAB_DATABASE_URL (the servers' PostgreSQL)\n")
        return 2
    # Named in pg_stat_activity, so an operator sees which connections parse.
    os.environ.setdefault("PGAPPNAME", workers.APPLICATION_NAME)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if args.child_of is not None:
        _serve_child(args.child_of, stop)
    else:
        print(f"perflab: parse worker {os.getpid()} waiting for streams", flush=True)
    workers.work_forever(stop, poll_s=args.poll)
    return 0


def _serve_child(parent: int, stop: Any) -> None:
    """The parse process of a `perflab serve` (ingest/parse_process.py): below the server's requests in CPU
    priority, and gone within a second of its server (whose SIGKILL it would otherwise outlive)."""
    import threading
    import time

    from perflab.ingest import parse_process

    os.nice(parse_process.NICE)

    def watch() -> None:
        while not stop.is_set():
            if os.getppid() != parent:
                stop.set()
                return
            time.sleep(0.5)

    threading.Thread(target=watch, name="perflab-parent-watch", daemon=True).start()


def cmd_migrate(args: argparse.Namespace) -> int:
    from perflab import db

    migrate(db.database_url(), args.revision)
    print("database migrated to", args.revision)
    return 0


def cmd_openapi(_: argparse.Namespace) -> int:
    from perflab.main import create_app

    json.dump(create_app().openapi(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def cmd_user_create(args: argparse.Namespace) -> int:
    import getpass

    from perflab.auth import service
    from perflab.db import unit_of_work

    password = args.password or os.environ.get("PERFLAB_NEW_PASSWORD") or getpass.getpass("password: ")
    with unit_of_work() as session:
        user = service.create_user(session, email=args.email, password=password, role=args.role)
        print(f"created {user.role} {user.email}")
    return 0


def cmd_project_create(args: argparse.Namespace) -> int:
    """Every project has an owner: the account named by --owner, else the first admin."""
    from sqlalchemy import select

    from perflab.auth.models import User
    from perflab.db import unit_of_work
    from perflab.projects import service

    with unit_of_work() as session:
        if args.owner:
            owner = session.scalar(select(User).where(User.email == args.owner.strip().lower()))
            if owner is None:
                print(f"perflab: no account {args.owner!r}; create it first with `perflab user create`",
                      file=sys.stderr)
                return 2
        else:
            owner = session.scalar(select(User).where(User.role == "admin").order_by(User.id).limit(1))
            if owner is None:
                print("perflab: no admin account yet to own the project; name its owner with --owner EMAIL",
                      file=sys.stderr)
                return 2
        project = service.create_project(session, name=args.name, slug=args.slug, owner_id=owner.id)
        print(project.slug)
        print(f"owner: {owner.email}", file=sys.stderr)
    return 0


def cmd_token_create(args: argparse.Namespace) -> int:
    from perflab.db import unit_of_work
    from perflab.projects import service as projects
    from perflab.tokens import service

    with unit_of_work() as session:
        project = projects.get_by_slug(session, slug=args.project)
        token, _ = service.create_token(
            session, project=project, name=args.name, scopes=[s.strip() for s in args.scope.split(",") if s.strip()]
        )
    print(token)
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    from perflab import security
    from perflab.db import unit_of_work
    from perflab.errors import NotFound
    from perflab.tokens import service
    from perflab.tokens.models import AgentToken

    with unit_of_work() as session:
        value = args.token
        if value.startswith(security.AGENT_TOKEN_PREFIX):
            from sqlalchemy import select

            row = session.scalar(select(AgentToken).where(AgentToken.token_hash == security.token_hash(value)))
            if row is None:
                raise NotFound("no such token")
        else:
            row = service.get_token(session, token_id=int(value))
        service.revoke_token(session, token=row)
        print(f"revoked token {row.id} ({row.name})")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    from perflab.parsers.cli import main as parse_main

    return parse_main([args.kind, args.file])


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="perflab", description="perflab server and admin commands")
    p.add_argument("--version", action="version", version=f"perflab {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("serve", help="start the server (embedded PostgreSQL unless PERFLAB_DATABASE_URL is set)")
    s.add_argument("--host")
    s.add_argument("--port", type=int)
    s.add_argument("--workers", type=int, default=1,
                   help="server processes sharing the port (they share limits, sweeps and live pages via PostgreSQL)")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("worker", help="parse ingested lines (PERFLAB_PARSE_WORKERS) on a dedicated host")
    s.add_argument("--poll", type=float, default=1.0, help="seconds between polls when no notice arrives")
    # Set by `perflab serve` for the parse process it supervises (ingest/parse_process.py).
    s.add_argument("--child-of", type=int, metavar="PID", help=argparse.SUPPRESS)
    s.set_defaults(func=cmd_worker)

    s = sub.add_parser("migrate", help="apply database migrations")
    s.add_argument("revision", nargs="?", default="head")
    s.set_defaults(func=cmd_migrate)

    s = sub.add_parser("openapi", help="print the OpenAPI document")
    s.set_defaults(func=cmd_openapi)

    user = sub.add_parser("user", help="manage accounts").add_subparsers(dest="user_command", required=True)
    s = user.add_parser("create")
    s.add_argument("email")
    s.add_argument("--role", choices=["admin", "member"], default="member")
    s.add_argument("--password", help="prefer PERFLAB_NEW_PASSWORD or the prompt: arguments show in ps")
    s.set_defaults(func=cmd_user_create)

    project = sub.add_parser("project", help="manage projects").add_subparsers(dest="project_command", required=True)
    s = project.add_parser("create")
    s.add_argument("name")
    s.add_argument("--slug")
    s.add_argument("--owner", metavar="EMAIL", help="the account that owns it (default: the first admin)")
    s.set_defaults(func=cmd_project_create)
    from perflab.members.cli import add_commands as add_member_commands

    add_member_commands(project)

    token = sub.add_parser("token", help="manage agent tokens").add_subparsers(dest="token_command", required=True)
    s = token.add_parser("create")
    s.add_argument("--project", required=True)
    s.add_argument("--name", default="agent")
    s.add_argument("--scope", default="ingest,read", help="comma-separated: ingest,read")
    s.set_defaults(func=cmd_token_create)
    s = token.add_parser("revoke")
    s.add_argument("token", help="the token itself, or its numeric id")
    s.set_defaults(func=cmd_token_revoke)

    s = sub.add_parser("parse", help="parse tool output and print JSON")
    s.add_argument("kind")
    s.add_argument("file", nargs="?", default="-")
    s.set_defaults(func=cmd_parse)

    for hook in _extra_commands():
        hook(sub)
    return p


def _extra_commands() -> list[Any]:
    """Subcommands contributed by domains (`perflab run show`, `perflab profile show`, ...)."""
    from perflab import domains

    return [domains.load(m).register for m in domains.CLI_MODULES]


def main(argv: list[str] | None = None) -> int:
    logging_setup()
    args = build_parser().parse_args(argv)
    from perflab.errors import AppError

    try:
        return int(args.func(args) or 0)
    except AppError as exc:
        sys.stderr.write(f"perflab: {exc.detail}\n")
        return 2


def logging_setup() -> None:
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


if __name__ == "__main__":
    sys.exit(main())
