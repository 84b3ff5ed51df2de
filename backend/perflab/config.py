"""One validated settings class; every knob is an environment variable prefixed PERFLAB_."""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PERFLAB_", extra="ignore")

    env: Literal["development", "test", "production"] = "development"
    home: Path = Path("./.perflab")
    database_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    admin_email: str | None = None
    admin_password: str | None = None
    secret_key: str | None = None
    # Public URL of the dashboard, used in links printed by the CLI and shown in the UI.
    public_url: str | None = None
    session_days: int = 14
    # Whether the session cookie needs HTTPS; on by default outside development.
    secure_cookies: bool | None = None
    max_upload_bytes: int = 256 * 1024 * 1024
    max_decompressed_bytes: int = 1024 * 1024 * 1024
    max_batch_bytes: int = 8 * 1024 * 1024
    # Large request bodies (past max_json_body_bytes, counted inflated) all requests may hold at
    # once; past it a request gets 503 with Retry-After. Bounds memory under concurrent uploads.
    max_inflight_body_bytes: int = 1536 * 1024 * 1024
    # Request bodies: anonymous callers may send this much (login is the only anonymous POST).
    max_anonymous_body_bytes: int = 16 * 1024
    # Authenticated JSON routes other than uploads (the largest text field is 50,000 characters).
    max_json_body_bytes: int = 1024 * 1024
    max_request_headers: int = 100
    max_request_header_bytes: int = 32 * 1024
    # Addresses (or CIDR networks) of reverse proxies whose X-Forwarded-For/-Proto are believed,
    # comma-separated. Empty: the header is ignored and the peer address is the client.
    trusted_proxies: str = ""
    # Host names answered besides the host of public_url (and loopback names outside production),
    # comma-separated; anything else gets 400 so a DNS-rebound name cannot reach the API.
    allowed_hosts: str = ""
    # /api/openapi.json and /api/docs need a session unless this is true.
    public_api_docs: bool = False
    frontend_dist: Path | None = None
    # A running agent run with no line for this long ends `partial` (its `perflab-agent run` died).
    run_silence_s: float = Field(default=600.0, gt=0)
    # S3-compatible object storage for artifacts (MinIO, Ceph RGW, AWS S3): used when a bucket is set,
    # so that every server behind a load balancer reads what any of them stored. See artifacts/storage.py.
    # Parse ingested lines in parse workers (a thread in every serve process, `perflab worker` on other
    # hosts) instead of in the ingest request, so an ingest answer waits for one insert and a commit:
    # ingest/workers.py. Off (`false`): the request parses, as before.
    parse_workers: bool = True
    # Profile uploads are parsed in this many pool processes at once (profiles/parsing.py); more wait
    # their turn. 0: in the request's thread (holds the interpreter lock for the whole parse).
    profile_parsers: int = Field(default=2, ge=0, le=64)
    s3_endpoint: str | None = None
    s3_bucket: str | None = None
    s3_access_key_id: str | None = None
    s3_secret_access_key: str | None = None
    s3_region: str | None = None
    s3_prefix: str = ""

    @model_validator(mode="after")
    def _refuse_insecure(self) -> Settings:
        if self.env == "production":
            if self.admin_password is not None and len(self.admin_password) < 12:
                raise ValueError("PERFLAB_ADMIN_PASSWORD must have at least 12 characters in production")
            if self.secret_key is not None and len(self.secret_key) < 32:
                raise ValueError("PERFLAB_SECRET_KEY must have at least 32 characters in production")
            if self.secure_cookies is False:
                raise ValueError("PERFLAB_SECURE_COOKIES=false is refused in production")
            if self.host not in ("127.0.0.1", "localhost", "::1") and self.public_url is None:
                raise ValueError("PERFLAB_PUBLIC_URL is required in production when listening beyond loopback")
        if self.admin_password is not None and self.admin_password.strip() == "":
            raise ValueError("PERFLAB_ADMIN_PASSWORD must not be empty")
        return self

    @property
    def cookie_secure(self) -> bool:
        if self.secure_cookies is not None:
            return self.secure_cookies
        return self.env == "production"

    @property
    def data_dir(self) -> Path:
        return self.home.resolve()

    @property
    def artifacts_dir(self) -> Path:
        return self.data_dir / "artifacts"

    def resolved_secret_key(self) -> str:
        """The configured key, else one generated once and kept in the data directory."""
        if self.secret_key:
            return self.secret_key
        path = self.data_dir / "secret_key"
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key)
        return key

    def allowed_host_names(self) -> frozenset[str]:
        from urllib.parse import urlsplit

        names = {h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()}
        if self.public_url:
            host = urlsplit(self.public_url).hostname
            if host:
                names.add(f"[{host}]" if ":" in host else host)
        if self.env != "production" or not self.public_url:
            names |= {"localhost", "127.0.0.1", "[::1]"}
            if self.host not in ("0.0.0.0", "::"):
                names.add(f"[{self.host}]" if ":" in self.host else self.host.lower())
        if self.env == "test":
            names.add("testserver")
        return frozenset(names)

    def trusted_proxy_list(self) -> list[str]:
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]

    def base_url(self) -> str:
        return self.public_url or f"http://{self.host}:{self.port}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
