"""Import every domain's models so that Base.metadata is complete (Alembic, the drift test)."""

from perflab.alerts.models import Webhook, WebhookDelivery, WebhookSeen
from perflab.artifacts.models import Artifact
from perflab.auth.models import User, UserSession
from perflab.cluster.models import RateLimitMiss
from perflab.compare.models import VerdictSettings
from perflab.decisions.models import Decision
from perflab.experiments.models import Experiment
from perflab.hosts.models import Host
from perflab.members.models import ProjectMember
from perflab.notes.models import Note
from perflab.profiles.models import Profile, ProfileFunction
from perflab.projects.models import Project
from perflab.runs.models import (
    RawChunk,
    RawChunkPart,
    Run,
    RunHost,
    Series,
    SeriesBlock,
    SeriesChunk,
    Stream,
    Summary,
)
from perflab.sharing.models import Comparison, ShareLink
from perflab.tokens.models import AgentToken

__all__ = [
    "AgentToken",
    "Artifact",
    "Comparison",
    "Decision",
    "Experiment",
    "Host",
    "Note",
    "Profile",
    "ProfileFunction",
    "Project",
    "ProjectMember",
    "RateLimitMiss",
    "RawChunk",
    "RawChunkPart",
    "Run",
    "RunHost",
    "Series",
    "SeriesBlock",
    "SeriesChunk",
    "ShareLink",
    "Stream",
    "Summary",
    "User",
    "UserSession",
    "VerdictSettings",
    "Webhook",
    "WebhookDelivery",
    "WebhookSeen",
]
