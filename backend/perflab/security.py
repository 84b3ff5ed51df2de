"""Password hashing and random tokens: argon2 for passwords, sha256 for high-entropy tokens."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()

AGENT_TOKEN_PREFIX = "plb_"
SHARE_TOKEN_PREFIX = "pls_"


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
