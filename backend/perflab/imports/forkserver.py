"""What the parser processes' fork server imports besides the jobs' modules (profiles/parsing.PRELOAD),
so that no parser process does it again: every parser module (loaded lazily elsewhere; in a parser
process each cost ~0.25 s of compiling without a bytecode cache), the ORM's mapper configuration
(done on first use) and the database driver (an import's job makes its engine, which imported psycopg
and its dialect in every import's process: 0.37 s of the 2.1 s the job of a 10 MB vmstat log took).
Not imported by the serving process, whose start-up does not need either.
"""

from __future__ import annotations

import psycopg  # noqa: F401 - the driver, imported by the job's create_engine otherwise
from sqlalchemy.dialects.postgresql import psycopg as psycopg_dialect  # noqa: F401
from sqlalchemy.orm import configure_mappers

import perflab.models  # noqa: F401 - every model, for configure_mappers
from perflab import parsers

parsers.load_all()
configure_mappers()
