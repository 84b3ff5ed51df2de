"""Import every domain's models so that Base.metadata is complete (Alembic, the drift test)."""

from perflab.artifacts.models import Artifact
from perflab.auth.models import User, UserSession
from perflab.experiments.models import Experiment
from perflab.hosts.models import Host
from perflab.notes.models import Note
from perflab.projects.models import Project
from perflab.runs.models import RawChunk, Run, RunHost, Sample, Series, Stream, Summary
from perflab.tokens.models import AgentToken

__all__ = [
    "AgentToken",
    "Artifact",
    "Experiment",
    "Host",
    "Note",
    "Project",
    "RawChunk",
    "Run",
    "RunHost",
    "Sample",
    "Series",
    "Stream",
    "Summary",
    "User",
    "UserSession",
]
