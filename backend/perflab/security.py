"""Password hashing and random tokens: argon2 for passwords, sha256 for high-entropy tokens."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()

AGENT_TOKEN_PREFIX = "plb_"
SHARE_TOKEN_PREFIX = "pls_"
REDACTED = "[REDACTED]"
# An issued token: a prefix and >= 32 URL-safe characters (token_urlsafe(32) gives 43). No word
# boundary before it: `X_plb_...` (an environment variable glued on) is still a token. The separator may
# arrive URL-encoded (`plb%5F...`), and so may the body's `-` and `_` (`%2D`, `%5F`).
_TOKEN_RE = re.compile(r"(?:plb|pls)(?:_|%5[Ff])(?:[A-Za-z0-9_-]|%2[Dd]|%5[Ff]){32,}")


def redact_tokens(text: str) -> str:
    """Replace anything shaped like an issued token; the agent strips its own, other clients may not."""
    if "pl" not in text:
        return text
    return _TOKEN_RE.sub(REDACTED, text)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


# Verifying against a throwaway hash keeps login time the same for unknown accounts.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


def burn_password_check(password: str) -> None:
    verify_password(_DUMMY_HASH, password)


def new_token(prefix: str = "", nbytes: int = 32) -> str:
    """A URL-safe token with nbytes*8 random bits (256 by default)."""
    return prefix + secrets.token_urlsafe(nbytes)


def token_hash(token: str) -> str:
    # Tokens carry >= 128 random bits, so a fast hash is enough; a slow KDF adds nothing.
    return hashlib.sha256(token.encode()).hexdigest()


def constant_time_equal(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
