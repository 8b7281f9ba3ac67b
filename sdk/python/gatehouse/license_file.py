"""Offline license files (docs/signing.md, "Offline license files"): verified with
no network, against the pinned response signing key, the application id, this machine's hardware
id and the local clock, which must not run behind the newest signed time already seen."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Optional, Tuple, Union

from ._time import parse_timestamp
from .signing import PinnedKeys, pin, verifies

BEGIN = "-----BEGIN GATEHOUSE LICENSE FILE-----"
END = "-----END GATEHOUSE LICENSE FILE-----"
#: How far the local clock may lag a signed time before the file is refused: a device a few
#: seconds behind the server still opens the file it was just given, while a clock turned back to
#: stretch a file's life is refused.
DEFAULT_CLOCK_TOLERANCE_SECONDS = 300


class LicenseFileError(Exception):
    """The license file cannot be trusted here and now. ``code``: MALFORMED (not a license file),
    SIGNATURE_INVALID (no pinned key's signature verifies), OTHER_APPLICATION, OTHER_MACHINE,
    EXPIRED, CLOCK_ROLLED_BACK (the local clock runs behind a signed time already seen)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class LicenseMembership:
    is_lifetime: bool
    active_until: Optional[datetime]


@dataclass(frozen=True)
class LicensePlan:
    id: str
    name: str


@dataclass(frozen=True)
class LicenseClaims:
    """What a verified license file says: ``app``, ``sub`` (the user id), ``username``,
    ``hwid_sha256`` (None without device auth), ``membership``, ``iat`` and ``exp`` (aware UTC
    datetimes) and ``jti``. Keep ``iat`` (or the newest server time seen) to pass as
    ``newest_seen`` next time."""

    app: str
    sub: str
    username: str
    hwid_sha256: Optional[str]
    membership: LicenseMembership
    iat: datetime
    exp: datetime
    jti: str
    key_id: str
    #: The user's entitlements when the file was issued, sorted; () in files issued before them.
    entitlements: Tuple[str, ...] = ()
    #: The base plan when the file was issued; None without one (and in older files).
    plan: Optional[LicensePlan] = None


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _malformed(why: str) -> LicenseFileError:
    return LicenseFileError("MALFORMED", f"not a Gatehouse license file: {why}")


def _envelope(text: str) -> Mapping[str, Any]:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 3 or lines[0] != BEGIN or lines[-1] != END:
        raise _malformed("no BEGIN and END lines")
    try:
        envelope = json.loads(base64.b64decode("".join(lines[1:-1]), validate=True).decode("utf-8"))
    except (binascii.Error, ValueError):
        raise _malformed("the body is not base64 of JSON") from None
    if not isinstance(envelope, dict) or envelope.get("v") != 1 or envelope.get("alg") != "ed25519":
        raise _malformed("not version 1 with ed25519")
    for name in ("kid", "payload", "sig"):
        if not isinstance(envelope.get(name), str):
            raise _malformed(f"no {name}")
    return envelope


def _unix(value: Any, name: str) -> datetime:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _malformed(f"claim {name} is not Unix seconds")
    return datetime.fromtimestamp(value, timezone.utc)


def _claims(payload: Mapping[str, Any], kid: str) -> LicenseClaims:
    membership = payload.get("membership")
    if not isinstance(membership, dict) or not isinstance(membership.get("is_lifetime"), bool):
        raise _malformed("no membership")
    until = membership.get("active_until")
    if until is None:
        active_until = None
    elif isinstance(until, str):
        try:
            active_until = parse_timestamp(until)
        except ValueError:
            raise _malformed("membership.active_until is not a timestamp") from None
    else:
        active_until = _unix(until, "membership.active_until")
    for name in ("app", "sub", "username", "jti"):
        if not isinstance(payload.get(name), str):
            raise _malformed(f"claim {name} is missing")
    hwid = payload.get("hwid_sha256")
    if hwid is not None and not isinstance(hwid, str):
        raise _malformed("claim hwid_sha256 is not text")
    entitlements = payload.get("entitlements", [])
    if not isinstance(entitlements, list) or not all(isinstance(c, str) for c in entitlements):
        raise _malformed("claim entitlements is not a list of strings")
    plan = payload.get("plan")
    if plan is not None and not (isinstance(plan, dict) and isinstance(plan.get("id"), str) and isinstance(plan.get("name"), str)):
        raise _malformed("claim plan is not {id, name}")
    return LicenseClaims(
        payload["app"],
        payload["sub"],
        payload["username"],
        hwid,
        LicenseMembership(membership["is_lifetime"], active_until),
        _unix(payload.get("iat"), "iat"),
        _unix(payload.get("exp"), "exp"),
        payload["jti"],
        kid,
        tuple(entitlements),
        None if plan is None else LicensePlan(plan["id"], plan["name"]),
    )


def hardware_id_digest(application_id: str, hardware_id: str) -> str:
    """``hwid_sha256``: the hex SHA-256 of ``<application id>:<hardware id>``."""
    return hashlib.sha256(f"{application_id}:{hardware_id}".encode("utf-8")).hexdigest()


def _seconds(value: Union[None, float, datetime]) -> Optional[float]:
    if value is None or not isinstance(value, datetime):
        return value
    return value.timestamp()


def verify_license_file(
    text: str,
    public_keys: Union[str, Iterable[str], PinnedKeys],
    application_id: str,
    hardware_id: Optional[str],
    now: Union[None, float, datetime] = None,
    newest_seen: Union[None, float, datetime] = None,
    clock_tolerance_seconds: float = DEFAULT_CLOCK_TOLERANCE_SECONDS,
) -> LicenseClaims:
    """Verifies a license file offline and returns its claims, or raises LicenseFileError.

    ``public_keys``: the pinned response signing public key(s), base64. ``hardware_id``: this
    machine's id (required when the file is bound to a device). ``now``: the local clock (Unix
    seconds or an aware datetime; default ``time.time()``). ``newest_seen``: the newest signed
    server time this installation has seen (a verified answer's x-timestamp or a license file's
    ``iat``, persisted by the application): a clock more than ``clock_tolerance_seconds`` behind
    it, or behind the file's own ``iat``, is refused as CLOCK_ROLLED_BACK, so turning the clock back
    does not stretch a file's life.
    """
    pinned: PinnedKeys = public_keys if isinstance(public_keys, dict) else pin(public_keys)  # type: ignore[assignment]
    envelope = _envelope(text)
    kid, payload_text = envelope["kid"], envelope["payload"]
    try:
        signature = _b64url(envelope["sig"])
    except (binascii.Error, ValueError):
        raise _malformed("sig is not base64url") from None
    signed = f"gatehouse-license-v1\n{kid}\n{payload_text}".encode("utf-8")
    # verifies() takes the x-signature form; the key id is the one the file names.
    entry = f"v1={kid}:{base64.b64encode(signature).decode('ascii')}"
    if not verifies(pinned, entry, signed):
        raise LicenseFileError("SIGNATURE_INVALID", "no pinned key's signature verifies this license file")
    try:
        payload = json.loads(_b64url(payload_text).decode("utf-8"))
    except (binascii.Error, ValueError):
        raise _malformed("the payload is not base64url of JSON") from None
    if not isinstance(payload, dict):
        raise _malformed("the payload is not a JSON object")
    claims = _claims(payload, kid)
    if claims.app != application_id:
        raise LicenseFileError("OTHER_APPLICATION", "this license file is for another application")
    if claims.hwid_sha256 is not None:
        if hardware_id is None or not hmac.compare_digest(claims.hwid_sha256, hardware_id_digest(application_id, hardware_id)):
            raise LicenseFileError("OTHER_MACHINE", "this license file is for another device")
    clock = time.time() if now is None else _seconds(now)
    assert clock is not None
    newest = max(claims.iat.timestamp(), _seconds(newest_seen) or 0.0)
    if clock + clock_tolerance_seconds < newest:
        raise LicenseFileError("CLOCK_ROLLED_BACK", "the local clock runs behind a time the server signed: set it right")
    if clock >= claims.exp.timestamp():
        raise LicenseFileError("EXPIRED", "this license file has expired: go online to get a new one")
    return claims
