"""The bytes of docs/signing.md: response signatures (Ed25519, checked against pinned keys) and
request signatures (HMAC-SHA256 under the request signing key). Pure functions; the client
(client.py) applies them to every request and answer."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
from typing import Dict, Iterable, Mapping, Optional, Union

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .errors import SignatureError

CREDENTIAL_HEADERS = ("authorization", "x-api-username", "x-api-password", "x-api-license-code", "x-hardware-id")
_ENTRY = re.compile(r"v1=([0-9a-f]{16}):([A-Za-z0-9+/]+={0,2})")
_TIMESTAMP = re.compile(r"[0-9]{1,15}")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")

PinnedKeys = Dict[str, Ed25519PublicKey]


def _b64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{what} is not base64") from None


def key_id(public_key_b64: str) -> str:
    """The first 16 hex digits of the SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(_b64(public_key_b64, "the public key")).hexdigest()[:16]


def pin(public_keys_b64: Union[str, Iterable[str]]) -> PinnedKeys:
    """The pinned keys (response_signing_public_key, or both during a rotation), by key id."""
    keys = [public_keys_b64] if isinstance(public_keys_b64, str) else list(public_keys_b64)
    pinned: PinnedKeys = {}
    for key in keys:
        raw = _b64(key, "a response signing public key")
        if len(raw) != 32:
            raise ValueError("a response signing public key must be the base64 of a raw 32-byte Ed25519 key")
        pinned[key_id(key)] = Ed25519PublicKey.from_public_bytes(raw)
    if not pinned:
        raise ValueError("pin at least one response signing public key")
    return pinned


def fresh_nonce() -> str:
    """24 random bytes as 32 characters of base64url: within x-nonce's 16-to-64 rule."""
    return secrets.token_urlsafe(24)


def verifies(pinned: PinnedKeys, signature_header: str, text: bytes) -> bool:
    """Whether an entry of ``v1=<key id>:<base64>`` entries verifies ``text`` under a pinned key;
    entries of another version or shape are passed over."""
    for entry in signature_header.split(" "):
        match = _ENTRY.fullmatch(entry)
        if match is None or match.group(1) not in pinned:
            continue
        try:
            pinned[match.group(1)].verify(base64.b64decode(match.group(2), validate=True), text)
            return True
        except (InvalidSignature, ValueError, binascii.Error):
            continue
    return False


def response_signed_text(timestamp: str, status: int, method: str, path_and_query: str, application_id: str, nonce: str, request_signature: str, body_digest: str) -> bytes:
    return "\n".join([
        "gatehouse-response-v1",
        timestamp,
        str(status),
        method + " " + path_and_query,
        application_id,
        nonce,
        request_signature,
        body_digest,
    ]).encode("utf-8")


def verify_response(
    pinned: PinnedKeys,
    application_id: str,
    method: str,
    path_and_query: str,
    nonce: str,
    request_signature: str,
    status: int,
    headers: Mapping[str, str],
    body: bytes = b"",
    download: bool = False,
) -> int:
    """Checks an answer (headers with lower-case names; ``body`` the bytes received in full, not
    used for a 200 or 206 download, whose digest is checked as it streams); returns its signed
    server time in Unix seconds, or raises SignatureError."""
    timestamp, header = headers.get("x-timestamp"), headers.get("x-signature")
    if timestamp is None or header is None or not _TIMESTAMP.fullmatch(timestamp):
        raise SignatureError("SIGNATURE_MISSING", f"the answer to {method} {path_and_query} carries no well-formed x-timestamp and x-signature", status)
    if download and status in (200, 206):
        content_sha256 = headers.get("x-content-sha256")
        if content_sha256 is None or not _SHA256_HEX.fullmatch(content_sha256):
            raise SignatureError("SIGNATURE_MISSING", f"the download answer to {path_and_query} carries no well-formed x-content-sha256", status)
        digest = content_sha256 + ":" + headers.get("content-range", "")
    else:
        digest = hashlib.sha256(body).hexdigest()
    text = response_signed_text(timestamp, status, method, path_and_query, application_id, nonce, request_signature, digest)
    if not verifies(pinned, header, text):
        raise SignatureError("SIGNATURE_INVALID", f"no signature by a pinned key verifies the answer to {method} {path_and_query}", status)
    return int(timestamp)


def request_signing_key_bytes(key_b64: str) -> bytes:
    """The request signing key's 32 bytes, from its base64 as the console shows it."""
    raw = _b64(key_b64, "request_signing_key")
    if len(raw) != 32 or base64.b64encode(raw).decode("ascii") != key_b64:
        raise ValueError("request_signing_key must be the base64 of 32 bytes, as the console shows it")
    return raw


def sign_request(
    key: bytes,
    method: str,
    path_and_query: str,
    api_key: str,
    credential_headers: Mapping[str, str],
    body: bytes,
    timestamp: str,
    nonce: Optional[str] = None,
) -> Dict[str, str]:
    """The x-timestamp, x-nonce and x-signature headers of a request sent with exactly these
    method, path and query, x-api-key, credential headers (lower-case names) and body bytes."""
    nonce = fresh_nonce() if nonce is None else nonce
    credentials = "\n".join(credential_headers.get(name, "") for name in CREDENTIAL_HEADERS)
    text = "\n".join([
        "gatehouse-request-v1",
        timestamp,
        nonce,
        method,
        path_and_query,
        api_key,
        hashlib.sha256(credentials.encode("utf-8")).hexdigest(),
        hashlib.sha256(body).hexdigest(),
    ]).encode("utf-8")
    mac = hmac.new(key, text, hashlib.sha256).digest()
    return {"x-timestamp": timestamp, "x-nonce": nonce, "x-signature": "v1=" + base64.b64encode(mac).decode("ascii")}
