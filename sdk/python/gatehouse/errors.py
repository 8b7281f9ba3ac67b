"""Typed errors: one class per error_code a client reacts to differently, GatehouseError for the
rest. Built from the server's error body ``{error_code, message, detail, errors?,
timed_out_until?, reason?}`` (docs/api.md, API reference, Errors)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Dict, List, Mapping, Optional, Type

from ._time import parse_timestamp


@dataclass(frozen=True)
class FieldError:
    field: str
    message: str


class GatehouseError(Exception):
    """Any refusal by the server: the HTTP ``status``, the stable ``error_code`` and the server's
    ``message``; ``field_errors`` on a 422, ``retry_after_seconds`` on a 429 (None when absent).
    ``error_code`` is UNEXPECTED_RESPONSE when the answer was not a Gatehouse error body."""

    def __init__(
        self,
        status: int,
        error_code: str,
        message: str,
        field_errors: Optional[List[FieldError]] = None,
        retry_after_seconds: Optional[int] = None,
        body: Optional[Mapping[str, object]] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code
        self.message = message
        self.field_errors: List[FieldError] = list(field_errors or [])
        self.retry_after_seconds = retry_after_seconds
        #: The whole error body as the server sent it (empty when it was not JSON).
        self.body: Mapping[str, object] = dict(body or {})

    def __str__(self) -> str:
        return f"{self.error_code} ({self.status}): {self.message}"


class TimedOutError(GatehouseError):
    """403 TIMED_OUT: the owner timed the user out until ``timed_out_until``, for ``reason``
    (None when no reason was given)."""

    def __init__(self, status: int, message: str, timed_out_until: Optional[datetime], reason: Optional[str], body: Optional[Mapping[str, object]] = None) -> None:
        super().__init__(status, "TIMED_OUT", message, body=body)
        self.timed_out_until = timed_out_until
        self.reason = reason


class ResetCooldownError(GatehouseError):
    """429 RESET_COOLDOWN: the user reset their devices recently; the next reset is allowed at
    ``next_reset_at`` (``retry_after_seconds`` from Retry-After)."""

    def __init__(self, status: int, message: str, next_reset_at: Optional[datetime], retry_after_seconds: Optional[int], body: Optional[Mapping[str, object]] = None) -> None:
        super().__init__(status, "RESET_COOLDOWN", message, retry_after_seconds=retry_after_seconds, body=body)
        self.next_reset_at = next_reset_at


class BannedError(GatehouseError):
    """403 BANNED: the user, address, device or license is banned."""


class MembershipInactiveError(GatehouseError):
    """403 MEMBERSHIP_INACTIVE: no running membership (activate a license)."""


class InvalidCredentialsError(GatehouseError):
    """401 INVALID_CREDENTIALS: wrong username, password, code or token."""


class LicenseInvalidError(GatehouseError):
    """LICENSE_INVALID (unknown or malformed code) or LICENSE_USED (already used)."""


class UsernameTakenError(GatehouseError):
    """422 USERNAME_TAKEN."""


class SessionExpiredError(GatehouseError):
    """401 SESSION_EXPIRED: the session ended and the client could not renew it."""


class RefreshRefusedError(GatehouseError):
    """401 REFRESH_INVALID or REFRESH_REUSED: the kept refresh token no longer opens a session
    (the client has forgotten it); log in again with the password or code."""


class LoginRequiredError(GatehouseError):
    """401 LOGIN_REQUIRED: the application needs a logged-in user."""


class AuthMethodDisabledError(GatehouseError):
    """401 TOKEN_AUTH_DISABLED, LEGACY_AUTH_DISABLED or LEGACY_AUTH_NEEDS_DEVICE_AUTH: the
    application turned that way of authenticating off, or cannot offer it as configured."""


class DeviceRequiredError(GatehouseError):
    """401 DEVICE_REQUIRED: device authentication is on and no hardware id was given."""


class DeviceLimitReachedError(GatehouseError):
    """401 DEVICE_LIMIT_REACHED: the user has registered all the devices allowed."""


class SessionLimitReachedError(GatehouseError):
    """401 SESSION_LIMIT_REACHED: the user has as many live sessions as allowed."""


class SeatsExhaustedError(GatehouseError):
    """403 SEATS_EXHAUSTED: every seat of the user's floating license is held; see ``retry_after_seconds``."""


class RateLimitedError(GatehouseError):
    """429 RATE_LIMITED, ACCOUNT_LOCKED, PASSWORD_QUEUE_FULL or WEBHOOK_TEST_LIMITED; see ``retry_after_seconds``."""


class InvalidApiCredentialsError(GatehouseError):
    """401 INVALID_API_CREDENTIALS: the application's API key or secret was refused."""


class NotFoundError(GatehouseError):
    """404: FILE_NOT_FOUND, VARIABLE_NOT_FOUND, USER_NOT_FOUND, NOT_FOUND, ..."""


class ValidationError(GatehouseError):
    """422 VALIDATION_FAILED (see ``field_errors``), 400 MALFORMED_REQUEST and the other answers
    to a request the server could not take as sent (413, 414, 415, 416)."""


class NotAPasswordUserError(GatehouseError):
    """422 NOT_A_PASSWORD_USER: a license-code user has no password to change."""


class ResetDisabledError(GatehouseError):
    """403 RESET_DISABLED: the application does not let users reset their devices."""


class TrialRefusedError(GatehouseError):
    """404 TRIAL_NOT_OFFERED (the application has no trial), 409 TRIAL_USED (this user or machine
    had it) or 409 TRIAL_NOT_ELIGIBLE (the user holds a plan or an active membership): see ``code``."""


class RequestSignatureRefusedError(GatehouseError):
    """401 SIGNATURE_REQUIRED, SIGNATURE_EXPIRED, SIGNATURE_INVALID or REQUEST_REPLAYED: the
    application has request signing on and refused the request's signature."""


class ConflictError(GatehouseError):
    """409: LICENSE_CONSUMED, EMAIL_TAKEN, FILE_NAME_TAKEN, WEBHOOK_LIMIT_REACHED (console and admin answers)."""


class ForbiddenError(GatehouseError):
    """403 CSRF_REJECTED (console answers) or BORROWING_NOT_ALLOWED (the plan lends no seats)."""


class ServerError(GatehouseError):
    """500 INTERNAL_ERROR or 503 SERVICE_UNAVAILABLE."""


class SignatureError(Exception):
    """The answer cannot be shown to be the server's answer to this request (docs/signing.md,
    Verifying in a client). Not a GatehouseError: nothing in the answer, not even its status, is
    trusted. ``code``: SIGNATURE_MISSING (no well-formed x-timestamp and x-signature, or a
    download without x-content-sha256), SIGNATURE_INVALID (no pinned key's signature verifies),
    CONTENT_MISMATCH (a download's bytes are not those signed) or PARTIAL_CONTENT (a 206 part,
    which cannot be held to the whole file's digest). ``status``: the unverified status."""

    def __init__(self, code: str, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


# Every code src/adapters/http/errors.ts maps to its class (TIMED_OUT is built apart, and
# RESET_COOLDOWN with its next_reset_at). An unknown code is a plain GatehouseError.
_CLASS_BY_CODE: Dict[str, Type[GatehouseError]] = {
    "VALIDATION_FAILED": ValidationError,
    "WEBHOOK_URL_REFUSED": ValidationError,
    "MALFORMED_REQUEST": ValidationError,
    "UNSUPPORTED_MEDIA_TYPE": ValidationError,
    "PAYLOAD_TOO_LARGE": ValidationError,
    "URI_TOO_LONG": ValidationError,
    "RANGE_NOT_SATISFIABLE": ValidationError,
    "NOT_FOUND": NotFoundError,
    "INVALID_API_CREDENTIALS": InvalidApiCredentialsError,
    "INVALID_ADMIN_API_KEY": InvalidApiCredentialsError,
    "INVALID_CONSOLE_TOKEN": InvalidApiCredentialsError,
    "INVALID_CREDENTIALS": InvalidCredentialsError,
    "SIGNATURE_REQUIRED": RequestSignatureRefusedError,
    "SIGNATURE_EXPIRED": RequestSignatureRefusedError,
    "SIGNATURE_INVALID": RequestSignatureRefusedError,
    "REQUEST_REPLAYED": RequestSignatureRefusedError,
    "LOGIN_REQUIRED": LoginRequiredError,
    "SESSION_EXPIRED": SessionExpiredError,
    "REFRESH_INVALID": RefreshRefusedError,
    "REFRESH_REUSED": RefreshRefusedError,
    "LEGACY_AUTH_DISABLED": AuthMethodDisabledError,
    "LEGACY_AUTH_NEEDS_DEVICE_AUTH": AuthMethodDisabledError,
    "TOKEN_AUTH_DISABLED": AuthMethodDisabledError,
    "DEVICE_REQUIRED": DeviceRequiredError,
    "DEVICE_LIMIT_REACHED": DeviceLimitReachedError,
    "SESSION_LIMIT_REACHED": SessionLimitReachedError,
    "SEATS_EXHAUSTED": SeatsExhaustedError,
    "BORROWING_NOT_ALLOWED": ForbiddenError,
    "BORROW_NOT_FOUND": NotFoundError,
    "MEMBERSHIP_INACTIVE": MembershipInactiveError,
    "BANNED": BannedError,
    "USERNAME_TAKEN": UsernameTakenError,
    "LICENSE_INVALID": LicenseInvalidError,
    "LICENSE_USED": LicenseInvalidError,
    "LICENSE_CONSUMED": ConflictError,
    "LICENSE_ALREADY_REDEEMED": ConflictError,
    "LICENSE_HELD_BY_SEVERAL": ConflictError,
    "EMAIL_TAKEN": ConflictError,
    "FILE_NAME_TAKEN": ConflictError,
    "WEBHOOK_LIMIT_REACHED": ConflictError,
    "PLAN_NAME_TAKEN": ConflictError,
    "PLAN_IN_USE": ConflictError,
    "PLAN_ARCHIVED": ValidationError,
    "CSRF_REJECTED": ForbiddenError,
    "APPLICATION_NOT_FOUND": NotFoundError,
    "USER_NOT_FOUND": NotFoundError,
    "LICENSE_NOT_FOUND": NotFoundError,
    "REDEMPTION_NOT_FOUND": NotFoundError,
    "VARIABLE_NOT_FOUND": NotFoundError,
    "ANNOUNCEMENT_NOT_FOUND": NotFoundError,
    "BAN_NOT_FOUND": NotFoundError,
    "CONSOLE_TOKEN_NOT_FOUND": NotFoundError,
    "DEVICE_NOT_FOUND": NotFoundError,
    "FILE_NOT_FOUND": NotFoundError,
    "WEBHOOK_NOT_FOUND": NotFoundError,
    "WEBHOOK_DELIVERY_NOT_FOUND": NotFoundError,
    "PLAN_NOT_FOUND": NotFoundError,
    "RATE_LIMITED": RateLimitedError,
    "ACCOUNT_LOCKED": RateLimitedError,
    "PASSWORD_QUEUE_FULL": RateLimitedError,
    "WEBHOOK_TEST_LIMITED": RateLimitedError,
    "NOT_A_PASSWORD_USER": NotAPasswordUserError,
    "RESET_DISABLED": ResetDisabledError,
    "RESET_COOLDOWN": ResetCooldownError,
    "TRIAL_NOT_OFFERED": TrialRefusedError,
    "TRIAL_USED": TrialRefusedError,
    "TRIAL_NOT_ELIGIBLE": TrialRefusedError,
    "SERVICE_UNAVAILABLE": ServerError,
    "INTERNAL_ERROR": ServerError,
}

_DIGITS = re.compile(r"[0-9]{1,9}")


def _optional_time(value: object) -> Optional[datetime]:
    if not isinstance(value, str):
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def error_from_response(status: int, headers: Mapping[str, str], body: bytes) -> GatehouseError:
    """The typed error of a non-2xx answer (headers with lower-case names)."""
    retry = headers.get("retry-after")
    retry_after = int(retry) if retry is not None and _DIGITS.fullmatch(retry) else None
    try:
        parsed = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        parsed = None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("error_code"), str):
        snippet = body[:200].decode("utf-8", "replace").strip()
        return GatehouseError(status, "UNEXPECTED_RESPONSE", f"HTTP {status}" + (f": {snippet}" if snippet else ""), retry_after_seconds=retry_after)
    code: str = parsed["error_code"]
    message = parsed["message"] if isinstance(parsed.get("message"), str) else code
    raw_errors = parsed.get("errors")
    field_errors = [
        FieldError(str(e.get("field", "")), str(e.get("message", "")))
        for e in (raw_errors if isinstance(raw_errors, list) else [])
        if isinstance(e, dict)
    ]
    if code == "TIMED_OUT":
        reason = parsed.get("reason")
        return TimedOutError(status, message, _optional_time(parsed.get("timed_out_until")), reason if isinstance(reason, str) else None, parsed)
    if code == "RESET_COOLDOWN":
        return ResetCooldownError(status, message, _optional_time(parsed.get("next_reset_at")), retry_after, parsed)
    cls = _CLASS_BY_CODE.get(code, GatehouseError)
    return cls(status, code, message, field_errors, retry_after, parsed)
