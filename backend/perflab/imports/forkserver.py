"""What the parser processes' fork server imports besides the jobs' modules (profiles/parsing.PRELOAD),
so that no parser process does it again: every parser module (loaded lazily elsewhere; in a parser
process each cost ~0.25 s of compiling without a bytecode cache) and the ORM's mapper configuration
(done on first use). Not imported by the serving process, whose start-up does not need either.
"""

from __future__ import annotations

from sqlalchemy.orm import configure_mappers

import perflab.models  # noqa: F401 - every model, for configure_mappers
from perflab import parsers

parsers.load_all()
configure_mappers()
