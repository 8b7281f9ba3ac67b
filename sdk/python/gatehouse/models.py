"""The integration API's answers as dataclasses (docs/api.md, API reference). Timestamps are
aware ``datetime`` objects in UTC; field names are the wire's."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, List, Mapping, Optional, Tuple

from ._time import parse_timestamp


class MalformedAnswerError(ValueError):
    """A (verified or unpinned) answer whose JSON is not the documented shape."""


def _get(data: Mapping[str, Any], name: str, kind: Any) -> Any:
    value = data.get(name) if isinstance(data, Mapping) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise MalformedAnswerError(f"field {name!r} is missing or not {getattr(kind, '__name__', kind)}")
    return value


def _opt(data: Mapping[str, Any], name: str, kind: Any) -> Any:
    value = data.get(name)
    return None if value is None else _get(data, name, kind)


def _time(data: Mapping[str, Any], name: str) -> datetime:
    try:
        return parse_timestamp(_get(data, name, str))
    except ValueError as error:
        raise MalformedAnswerError(f"field {name!r}: {error}") from None


def _opt_time(data: Mapping[str, Any], name: str) -> Optional[datetime]:
    return None if data.get(name) is None else _time(data, name)


def _moment(data: Mapping[str, Any], name: str) -> datetime:
    """A time given as ISO 8601 text or as Unix seconds (where the spec leaves the form open)."""
    value = data.get(name)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, timezone.utc)
    return _time(data, name)


@dataclass(frozen=True)
class PlanRef:
    """The base plan a membership holds, as it is named now."""

    id: str
    name: str

    @staticmethod
    def from_json(data: Any) -> "Optional[PlanRef]":
        return None if data is None else PlanRef(_get(data, "id", str), _get(data, "name", str))


def _codes(data: Mapping[str, Any], name: str) -> Tuple[str, ...]:
    codes = data.get(name, [])
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise MalformedAnswerError(f"field {name!r} is not a list of strings")
    return tuple(codes)


@dataclass(frozen=True)
class Membership:
    #: The membership grants access now (its base plan's grace included).
    is_active: bool
    #: Never expires.
    is_lifetime: bool
    #: None while lifetime or when no time was ever granted.
    active_until: Optional[datetime]
    #: The base plan held, or None.
    plan: Optional[PlanRef] = None
    #: The user's entitlement codes, sorted (docs/api.md, Membership).
    entitlements: Tuple[str, ...] = ()
    #: Access continues past active_until, in the base plan's grace, until grace_ends_at.
    in_grace: bool = False
    grace_ends_at: Optional[datetime] = None

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Membership":
        return Membership(
            _get(data, "is_active", bool),
            _get(data, "is_lifetime", bool),
            _opt_time(data, "active_until"),
            PlanRef.from_json(data.get("plan")),
            _codes(data, "entitlements"),
            data.get("in_grace") is True,
            _opt_time(data, "grace_ends_at"),
        )


@dataclass(frozen=True)
class UserSummary:
    id: str
    username: str
    membership: Membership

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "UserSummary":
        return UserSummary(_get(data, "id", str), _get(data, "username", str), Membership.from_json(_get(data, "membership", dict)))


@dataclass(frozen=True)
class Variable:
    name: str
    value: str


@dataclass(frozen=True)
class ContextFile:
    id: str
    name: str
    mime_type: str
    is_encrypted: bool


@dataclass(frozen=True)
class Announcement:
    id: str
    title: str
    content_html: str
    publish_from: datetime
    publish_until: Optional[datetime]
    status: str
    publication_date: str


@dataclass(frozen=True)
class Application:
    id: str
    name: str
    variables: List[Variable] = field(default_factory=list)
    files: List[ContextFile] = field(default_factory=list)


@dataclass(frozen=True)
class AppContext:
    application: Application
    announcements: List[Announcement]
    #: None when not authenticated, and whenever the application allows anonymous access.
    user: Optional[UserSummary]
    #: The server's clock: the one to count remaining time with.
    server_time: datetime

    def variable(self, name: str) -> Optional[str]:
        """The value of the application variable ``name``, or None."""
        return next((v.value for v in self.application.variables if v.name == name), None)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "AppContext":
        app = _get(data, "application", dict)
        variables = [Variable(_get(v, "name", str), _get(v, "value", str)) for v in _get(app, "variables", list)]
        files = [
            ContextFile(_get(f, "id", str), _get(f, "name", str), _get(f, "mime_type", str), _get(f, "is_encrypted", bool))
            for f in _get(app, "files", list)
        ]
        announcements = [
            Announcement(
                _get(a, "id", str),
                _get(a, "title", str),
                _get(a, "content_html", str),
                _time(a, "publish_from"),
                _opt_time(a, "publish_until"),
                _get(a, "status", str),
                _get(a, "publication_date", str),
            )
            for a in _get(data, "announcements", list)
        ]
        user = data.get("user")
        return AppContext(
            Application(_get(app, "id", str), _get(app, "name", str), variables, files),
            announcements,
            None if user is None else UserSummary.from_json(_get(data, "user", dict)),
            _time(data, "server_time"),
        )


@dataclass(frozen=True)
class Adjustment:
    """A membership change: the answer of license activation."""

    id: str
    type: str
    occurred_at: datetime
    #: Minutes added; None for lifetime.
    minutes: Optional[int]
    grants_lifetime_access: bool
    revokes_lifetime_access: bool
    license_id: Optional[str]
    reason: Optional[str] = None
    #: The membership as it is after the change (the answer of activate_license).
    membership: Optional[Membership] = None

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Adjustment":
        membership = data.get("membership")
        return Adjustment(
            _get(data, "id", str),
            _get(data, "type", str),
            _time(data, "occurred_at"),
            _opt(data, "minutes", int),
            _get(data, "grants_lifetime_access", bool),
            _get(data, "revokes_lifetime_access", bool),
            _opt(data, "license_id", str),
            _opt(data, "reason", str),
            None if membership is None else Membership.from_json(_get(data, "membership", dict)),
        )


@dataclass(frozen=True)
class Session:
    session_token: str = field(repr=False)
    expires_at: datetime
    #: The user's membership at login: their plan and entitlements.
    membership: Optional[Membership] = None
    #: With ``remember=True`` (and on a refresh): the next refresh token and when it expires.
    refresh_token: Optional[str] = field(default=None, repr=False)
    refresh_expires_at: Optional[datetime] = None

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Session":
        membership = data.get("membership")
        return Session(
            _get(data, "session_token", str),
            _time(data, "expires_at"),
            None if membership is None else Membership.from_json(_get(data, "membership", dict)),
            _opt(data, "refresh_token", str),
            _opt_time(data, "refresh_expires_at"),
        )


@dataclass(frozen=True)
class Lease:
    """A heartbeat's answer: the session lives until ``lease_expires_at`` without another;
    ``server_time`` is the server's clock (docs/api.md, POST /heartbeat)."""

    lease_expires_at: datetime
    server_time: datetime

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Lease":
        return Lease(_time(data, "lease_expires_at"), _time(data, "server_time"))


@dataclass(frozen=True)
class UserVariable:
    """A variable of the logged-in user (docs/api.md, User variables)."""

    name: str
    value: str
    updated_at: datetime

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "UserVariable":
        return UserVariable(_get(data, "name", str), _get(data, "value", str), _time(data, "updated_at"))


@dataclass(frozen=True)
class DeviceReset:
    """The answer of reset_devices: when the user may reset again (None: no cooldown)."""

    next_reset_at: Optional[datetime]

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "DeviceReset":
        return DeviceReset(None if data.get("next_reset_at") is None else _moment(data, "next_reset_at"))


@dataclass(frozen=True)
class Device:
    """One of the logged-in user's devices (devices()); ``current``: this client's machine."""

    id: str
    name: Optional[str]
    platform: Optional[str]
    app_version: Optional[str]
    first_seen_at: datetime
    last_seen_at: datetime
    current: bool

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Device":
        return Device(
            _get(data, "id", str),
            _opt(data, "name", str),
            _opt(data, "platform", str),
            _opt(data, "app_version", str),
            _time(data, "first_seen_at"),
            _time(data, "last_seen_at"),
            _get(data, "current", bool),
        )


@dataclass(frozen=True)
class IssuedLicenseFile:
    """The answer of request_license_file: the file's text (save it as is) and when it expires."""

    license_file: str = field(repr=False)
    expires_at: datetime

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "IssuedLicenseFile":
        return IssuedLicenseFile(_get(data, "license_file", str), _moment(data, "expires_at"))
