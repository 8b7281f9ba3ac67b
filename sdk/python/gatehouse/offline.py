"""app_context's offline fallback (sdk/python/README.md, Offline license files): when the server
cannot be reached, the license file the client keeps stands in for the application context."""

from __future__ import annotations

import http.client
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Optional, Union

from .errors import GatehouseError, SignatureError
from .license_file import LicenseClaims
from .models import Membership, PlanRef, UserSummary

#: Answers that say the server is not there: a proxy in front of a stopped server, or the server
#: without its database (503 SERVICE_UNAVAILABLE), signed or not.
UNREACHABLE_STATUSES = frozenset({502, 503, 504})


def unreachable(error: BaseException) -> bool:
    """Whether a failed call never reached a working server: no connection (refused, reset,
    timed out, no route, no such host) or an answer of UNREACHABLE_STATUSES. Falling back on
    these gives an attacker nothing a cut cable does not: the license file must still verify."""
    if isinstance(error, (GatehouseError, SignatureError)):
        return error.status in UNREACHABLE_STATUSES
    return isinstance(error, (OSError, http.client.HTTPException))


@dataclass(frozen=True)
class OfflineAppContext:
    """What app_context(offline_fallback=True) answers from the stored license file: ``cause``,
    the error that made it fall back; ``license``, the verified claims; ``expires_at``, the
    file's expiry; ``user``, what the file grants. Variables, files and announcements are the
    server's and are not in it."""

    cause: BaseException
    license: LicenseClaims
    expires_at: datetime
    user: UserSummary
    offline: bool = True

    @staticmethod
    def of(cause: BaseException, claims: LicenseClaims) -> "OfflineAppContext":
        plan = None if claims.plan is None else PlanRef(claims.plan.id, claims.plan.name)
        membership = Membership(True, claims.membership.is_lifetime, claims.membership.active_until, plan, claims.entitlements)
        return OfflineAppContext(cause, claims, claims.exp, UserSummary(claims.sub, claims.username, membership))


def store_license_file(path: Union[str, "os.PathLike[str]"], text: str) -> None:
    """Replaces the file at ``path`` with ``text`` at once, readable by its owner only."""
    target = Path(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def read_license_file(path: Union[str, "os.PathLike[str]"]) -> Optional[str]:
    """The stored file's text, or None when none is stored."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
