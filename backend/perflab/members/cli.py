"""`perflab project add-member SLUG EMAIL --role R` and `perflab project remove-member SLUG EMAIL`."""

from __future__ import annotations

import argparse
from typing import Any


def _add(args: argparse.Namespace) -> int:
    from perflab.db import unit_of_work
    from perflab.members import service
    from perflab.projects import service as projects

    with unit_of_work() as db:
        project = projects.get_by_slug(db, slug=args.slug)
        member, created = service.add_member(db, project=project, email=args.email, role=args.role)
    print(f"{'added' if created else 'updated'} {member['email']} as {member['role']} of {args.slug}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from perflab.db import unit_of_work
    from perflab.members import service
    from perflab.projects import service as projects

    with unit_of_work() as db:
        project = projects.get_by_slug(db, slug=args.slug)
        service.remove_member_by_email(db, project=project, email=args.email)
    print(f"removed {args.email} from {args.slug}")
    return 0


def add_commands(project: Any) -> None:
    """Adds to the `perflab project` subcommands."""
    s = project.add_parser("add-member", help="give a user a role in a project (or change it)")
    s.add_argument("slug")
    s.add_argument("email")
    s.add_argument("--role", choices=["owner", "member", "viewer"], default="member")
    s.set_defaults(func=_add)
    s = project.add_parser("remove-member", help="take a user out of a project")
    s.add_argument("slug")
    s.add_argument("email")
    s.set_defaults(func=_remove)
