"""GatehouseClient: the integration API for Python client applications, with the surface of the
TypeScript SDK (docs/sdk.md, Client SDK). See sdk/python/README.md."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union, overload
from urllib.parse import quote

from . import signing
from ._heartbeat import Heartbeat
from ._server_clock import ServerClock
from ._transport import Exchange, Origin, send
from .encrypted_file import MAGIC, Decryptor, EncryptedFileError, files_key_bytes
from .errors import GatehouseError, LoginRequiredError, RefreshRefusedError, SessionExpiredError, SignatureError, error_from_response
from .license_file import DEFAULT_CLOCK_TOLERANCE_SECONDS, LicenseClaims, verify_license_file
from .models import Adjustment, AppContext, Device, DeviceReset, IssuedLicenseFile, Lease, Session, UserSummary, UserVariable
from .offline import OfflineAppContext, read_license_file, store_license_file, unreachable
from .refresh_tokens import RefreshTokenFile, RefreshTokenStore

INTEGRATION = "/api/integration"
#: Bytes read from a download at a time: the memory a download holds is this plus one chunk.
READ_SIZE = 64 * 1024


@dataclass
class _Sent:
    method: str
    target: str
    nonce: str
    signature: str


@dataclass
class _Answer:
    exchange: Exchange
    #: The body, read in full (None for a download's success, which streams).
    body: Optional[bytes]
    sent: _Sent

    @property
    def status(self) -> int:
        return self.exchange.status

    @property
    def ok(self) -> bool:
        return 200 <= self.exchange.status < 300

    def json(self) -> Any:
        return json.loads((self.body or b"").decode("utf-8"))

    def error(self) -> GatehouseError:
        return error_from_response(self.status, self.exchange.headers, self.body or b"")


class GatehouseClient:
    """A client of one application.

    ``base_url``: where the server answers (no ``/api`` suffix). ``api_key``, ``api_secret``:
    the application's. Optional: ``files_encryption_key`` (base64 as the console shows it, or
    its 32 bytes) to decrypt encrypted files; ``hardware_id``, this device's id, sent with
    sign-up, login, activation and license files (required by applications with device_auth);
    ``device``, what this machine is (``{"name", "platform", "app_version"}``, each optional),
    sent with ``hardware_id`` on sign-up and login;
    ``response_signing_public_keys`` (the application's ``response_signing_public_key``, or a
    list of several during a rotation) with ``application_id``: every answer must then be
    signed by a pinned key for the very request sent, or the call raises SignatureError;
    ``request_signing_key`` (base64 of 32 bytes) to sign every request; ``timeout`` in seconds
    per network operation; ``ssl_context`` for https; ``license_file``, a path where
    request_license_file() keeps the file and app_context(offline_fallback=True) reads it
    (needs the pinned keys); ``refresh_token_store``, where ``login(..., remember=True)`` keeps
    the refresh token and only it: a path (a file created with mode 0600) or a RefreshTokenStore.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        api_secret: str,
        *,
        files_encryption_key: Union[None, str, bytes] = None,
        hardware_id: Optional[str] = None,
        device: Optional[Dict[str, str]] = None,
        response_signing_public_keys: Union[None, str, Iterable[str]] = None,
        application_id: Optional[str] = None,
        request_signing_key: Optional[str] = None,
        timeout: float = 60.0,
        ssl_context: Optional[ssl.SSLContext] = None,
        license_file: Union[None, str, "os.PathLike[str]"] = None,
        refresh_token_store: Union[None, str, "os.PathLike[str]", RefreshTokenStore] = None,
    ) -> None:
        self._origin = Origin.parse(base_url)
        self._api_key = api_key
        self._api_secret = api_secret
        self._files_key = None if files_encryption_key is None else files_key_bytes(files_encryption_key)
        self.hardware_id = hardware_id
        self.device = device
        if response_signing_public_keys is not None and not application_id:
            raise ValueError("response_signing_public_keys needs application_id: the signatures bind the application id")
        self._pinned = None if response_signing_public_keys is None else signing.pin(response_signing_public_keys)
        self.application_id = application_id
        self._request_key = None if request_signing_key is None else signing.request_signing_key_bytes(request_signing_key)
        if license_file is not None and self._pinned is None:
            raise ValueError("license_file needs response_signing_public_keys: a file is only as good as the key it is checked with")
        self._license_file = license_file
        kept = refresh_token_store
        self._refresh_tokens: Optional[RefreshTokenStore] = None if kept is None else RefreshTokenFile(kept) if isinstance(kept, (str, os.PathLike)) else kept
        self._timeout = timeout
        self._ssl_context = ssl_context
        self._lock = threading.RLock()
        self._token: Optional[str] = None
        # The credentials of the last login, kept in memory to log in again when the session expires.
        self._credentials: Optional[Dict[str, str]] = None
        self._context: Optional[AppContext] = None
        self._context_server_time = 0.0
        self._context_at = 0.0
        self._clock = ServerClock()
        self._newest_signed_time: Optional[int] = None
        # The entitlements of the last signed answer or verified license file that told them.
        self._entitlements: Tuple[str, ...] = ()
        # The running heartbeat thread, if any (start_heartbeat).
        self._heartbeat: Optional[Heartbeat] = None

    # ---- state -------------------------------------------------------------------------

    @property
    def session_token(self) -> Optional[str]:
        """The session token in use; None before login and after logout."""
        return self._token

    @property
    def last_app_context(self) -> Optional[AppContext]:
        """The application context last read by app_context() (or download_file), or None."""
        return self._context

    @property
    def entitlements(self) -> Tuple[str, ...]:
        """The user's entitlement codes, sorted, as the last login, application context,
        activation or verified license file told them; () before any (docs/sdk.md, Entitlements)."""
        return self._entitlements

    def has_entitlement(self, code: str) -> bool:
        """Whether ``code`` is among the user's entitlements (see ``entitlements``)."""
        return code in self._entitlements

    @property
    def newest_signed_time(self) -> Optional[int]:
        """The newest x-timestamp (Unix seconds) of an answer that verified against the pinned
        keys; None without pinned keys or before the first answer. Persist it for
        verify_license_file."""
        return self._newest_signed_time

    # ---- accounts ----------------------------------------------------------------------

    def sign_up(self, username: str, password: str, *, device: Optional[Dict[str, str]] = None) -> UserSummary:
        """Creates a username-and-password user (membership inactive until a license is activated);
        ``device`` says what this machine is, instead of the client's ``device``."""
        return UserSummary.from_json(self._json("POST", "/sign_up", {"username": username, "password": password, **self._machine(device)}))

    def sign_up_with_license(self, code: str, *, device: Optional[Dict[str, str]] = None) -> UserSummary:
        """Creates a user from a license code; the answer holds the generated username."""
        return UserSummary.from_json(self._json("POST", "/sign_up_with_license_code", {"code": code, **self._machine(device)}))

    def login(self, username: Optional[str] = None, password: Optional[str] = None, *, code: Optional[str] = None, device: Optional[Dict[str, str]] = None, remember: bool = False) -> Session:
        """Opens a session with a username and password, or with the license ``code`` the user
        signed up with. The credentials are kept in memory so that an expired session is renewed
        by itself. ``device`` says what this machine is, instead of the client's ``device``. With ``remember`` (and ``refresh_token_store``), only the refresh token is
        kept, in the store, and renews instead."""
        if remember and self._refresh_tokens is None:
            raise ValueError("login with remember needs refresh_token_store")
        credentials = _credentials(username, password, code, "login")
        body: Dict[str, Any] = {"credentials": credentials, **self._machine(device)}
        if remember:
            body["remember"] = True
        session = Session.from_json(self._json("POST", "/auth/login", body))
        with self._lock:
            self._token = session.session_token
            # The application may issue no refresh tokens: then the credentials renew, as without remember.
            self._credentials = credentials if session.refresh_token is None or not remember else None
            if session.membership is not None:
                self._entitlements = session.membership.entitlements
            if remember and session.refresh_token is not None and self._refresh_tokens is not None:
                self._refresh_tokens.save(session.refresh_token)
        return session

    def resume(self) -> Optional[Session]:
        """Opens a session with the refresh token the store keeps (a client started again with
        only its file); None when none is kept. A refused token is forgotten and raises
        RefreshRefusedError: log in again."""
        with self._lock:
            kept = None if self._refresh_tokens is None else self._refresh_tokens.load()
            return None if kept is None else self._refresh_with(kept)

    def _refresh_with(self, kept: str) -> Session:
        """One refresh, under the lock: a token presented twice would revoke its family."""
        answer = self._send("POST", "/auth/refresh", body={"refresh_token": kept, **self._device()})
        if not answer.ok:
            error = answer.error()
            if isinstance(error, RefreshRefusedError) and self._refresh_tokens is not None:
                self._refresh_tokens.clear()
            raise error
        session = Session.from_json(answer.json())
        # Kept before anything else: the token presented is spent now.
        if session.refresh_token is not None and self._refresh_tokens is not None:
            self._refresh_tokens.save(session.refresh_token)
        self._token = session.session_token
        if session.membership is not None:
            self._entitlements = session.membership.entitlements
        return session

    def logout(self) -> None:
        """Ends the session and forgets the credentials. An already expired session counts as ended."""
        self.stop_heartbeat()
        with self._lock:
            token, self._token, self._credentials = self._token, None, None
            self._entitlements = ()
            if self._refresh_tokens is not None:
                self._refresh_tokens.clear()
        if token is None:
            return
        answer = self._send("POST", "/auth/logout", token=token)
        if not answer.ok:
            error = answer.error()
            if not isinstance(error, SessionExpiredError):
                raise error

    # ---- heartbeats (docs/sdk.md, Heartbeats) -------------------------------------------

    def heartbeat(self) -> Lease:
        """One heartbeat of the current session: its lease moves on. A lapsed lease is not renewed
        by logging in again: it raises SessionExpiredError."""
        token = self._token
        if token is None:
            raise LoginRequiredError(401, "LOGIN_REQUIRED", "log in before heartbeating")
        answer = self._send("POST", "/heartbeat", token=token, body=self._device())
        if not answer.ok:
            raise answer.error()
        return Lease.from_json(answer.json())

    def start_heartbeat(
        self,
        on_lease_lost: Optional[Callable[[GatehouseError], None]] = None,
        *,
        on_beat_failed: Optional[Callable[[BaseException], None]] = None,
        on_beat: Optional[Callable[[Lease], None]] = None,
        interval: Optional[float] = None,
    ) -> Lease:
        """Beats once now (its refusal is raised), then on a daemon thread at half the lease the
        server answers (``interval`` seconds instead, when given), until logout() or
        stop_heartbeat(). A later refusal stops it and is passed to ``on_lease_lost`` (on that
        thread); a server out of reach goes to ``on_beat_failed`` and the beats go on; each
        renewed lease goes to ``on_beat``."""
        self.stop_heartbeat()
        first = self.heartbeat()
        with self._lock:
            self._heartbeat = Heartbeat(self.heartbeat, first, on_lease_lost, on_beat_failed, on_beat, interval)
        return first

    def stop_heartbeat(self) -> None:
        """Stops the heartbeat thread, if one runs; the session stays open until its lease lapses."""
        with self._lock:
            running, self._heartbeat = self._heartbeat, None
        if running is not None:
            running.stop()

    @property
    def heartbeating(self) -> bool:
        """Whether the heartbeat thread runs (False once a refusal stopped it)."""
        running = self._heartbeat
        return running is not None and running.running

    def activate_license(self, code: str, username: Optional[str] = None, password: Optional[str] = None) -> Adjustment:
        """Adds a license to a username-and-password user's membership. Without credentials,
        those of the current password login are used."""
        who = self._password_credentials(username, password, "activate_license")
        body = {"code": code, "username": who["username"], "password": who["password"], **self._device()}
        adjustment = Adjustment.from_json(self._json("POST", "/activate_license", body))
        if adjustment.membership is not None:
            with self._lock:
                self._entitlements = adjustment.membership.entitlements
        return adjustment

    def change_password(self, new_password: str, username: Optional[str] = None, password: Optional[str] = None) -> None:
        """Changes a username-and-password user's password (the current one is checked). Every
        session of the user ends; when these were the credentials of the current login, the
        client keeps the new password and logs in with it on its next call."""
        who = self._password_credentials(username, password, "change_password")
        self._json("POST", "/change_password", {"username": who["username"], "password": who["password"], "new_password": new_password})
        with self._lock:
            if self._credentials is not None and self._credentials.get("username") == who["username"]:
                self._credentials = {"username": who["username"], "password": new_password}
                self._token = None

    def reset_devices(self, username: Optional[str] = None, password: Optional[str] = None, *, code: Optional[str] = None) -> DeviceReset:
        """Unregisters all of the user's devices and ends their sessions (full credentials are
        required: those given, else those of the current login). Raises ResetCooldownError
        (with ``next_reset_at``) within the application's cooldown, ResetDisabledError when the
        application does not allow it. The client then logs in again on its next call, which
        registers this device afresh."""
        credentials = self._given_or_kept(username, password, code, "reset_devices")
        result = DeviceReset.from_json(self._json("POST", "/reset_devices", credentials))
        with self._lock:
            if self._credentials == credentials:
                self._token = None
        return result

    def _given_or_kept(self, username: Optional[str], password: Optional[str], code: Optional[str], route: str) -> dict:
        """The credentials given, else a copy of those of the last login, for a route that needs them whole."""
        if username is None and password is None and code is None:
            with self._lock:
                kept = self._credentials
            if kept is None:
                raise ValueError(f"{route} needs credentials: pass them, or log in first")
            return dict(kept)
        return _credentials(username, password, code, route)

    def start_trial(self, hardware_id: str, username: Optional[str] = None, password: Optional[str] = None, *, code: Optional[str] = None) -> UserSummary:
        """Starts the application's trial for the user on the machine ``hardware_id``, once per user
        and per machine. Full credentials are required (a user without a membership has no
        session): those given, else those of the last login. Raises TrialRefusedError
        (TRIAL_NOT_OFFERED, TRIAL_USED or TRIAL_NOT_ELIGIBLE, in ``code``) when refused."""
        credentials = self._given_or_kept(username, password, code, "start_trial")
        return UserSummary.from_json(self._json("POST", "/start_trial", {"credentials": credentials, "hardware_id": hardware_id}))

    # ---- the application context ---------------------------------------------------------

    @overload
    def app_context(self) -> AppContext: ...

    @overload
    def app_context(self, offline_fallback: bool) -> Union[AppContext, OfflineAppContext]: ...

    def app_context(self, offline_fallback: bool = False) -> Union[AppContext, OfflineAppContext]:
        """Reads the application context (as the logged-in user when there is one) and keeps it
        for remaining_time(). With ``offline_fallback``, when the server cannot be reached (no
        connection, or 502, 503 or 504, signed or not), the file at ``license_file`` is verified
        and answered as an OfflineAppContext; a file that does not verify raises its
        LicenseFileError, and with none stored the original error is raised."""
        try:
            answer = self._authenticated("GET", "/app_context")
        except Exception as error:
            if not offline_fallback or self._license_file is None or not unreachable(error):
                raise
            text = read_license_file(self._license_file)
            if text is None:
                raise
            return OfflineAppContext.of(error, self.verify_license_file(text))
        context = AppContext.from_json(answer.json())
        with self._lock:
            self._context = context
            if context.user is not None:
                self._entitlements = context.user.membership.entitlements
            # server_time is in the body, so with pinned keys it is signed like the rest of it;
            # it has the milliseconds that x-timestamp (whole seconds) lacks.
            self._context_server_time = context.server_time.timestamp()
            self._context_at = time.monotonic()
        return context

    def remaining_time(self) -> Optional[float]:
        """Seconds of membership left according to the last application context, on the
        server's clock: ``active_until`` less the answer's ``server_time`` (signed with the rest
        of the body when keys are pinned), less the time
        elapsed since on the monotonic clock (never the device's wall clock). ``math.inf`` for
        lifetime access, 0 once expired, None without a context, without a user in it
        (anonymous) or when no time was ever granted."""
        with self._lock:
            context, server_time, at = self._context, self._context_server_time, self._context_at
        if context is None or context.user is None:
            return None
        membership = context.user.membership
        if membership.is_lifetime:
            return math.inf
        if membership.active_until is None:
            return None
        server_now = server_time + (time.monotonic() - at)
        return max(0.0, membership.active_until.timestamp() - server_now)

    # ---- per-user variables ----------------------------------------------------------------

    def user_variables(self) -> List[UserVariable]:
        """The logged-in user's own variables."""
        data = self._authenticated("GET", "/user_variables").json()
        if not isinstance(data, list):
            raise GatehouseError(200, "UNEXPECTED_RESPONSE", "user_variables did not answer a list")
        return [UserVariable.from_json(item) for item in data]

    def get_user_variable(self, name: str) -> UserVariable:
        """One variable of the logged-in user; NotFoundError (VARIABLE_NOT_FOUND) when unset."""
        return UserVariable.from_json(self._authenticated("GET", _variable_path(name)).json())

    def set_user_variable(self, name: str, value: str) -> Optional[UserVariable]:
        """Sets (or creates) a variable of the logged-in user; the variable as stored when the
        server answers it."""
        answer = self._authenticated("PUT", _variable_path(name), {"value": value})
        data = answer.json() if answer.body else None
        return UserVariable.from_json(data) if isinstance(data, dict) else None

    def delete_user_variable(self, name: str) -> None:
        self._authenticated("DELETE", _variable_path(name))

    # ---- devices -----------------------------------------------------------------------------

    def devices(self) -> List[Device]:
        """The logged-in user's devices, first registered first; ``current`` marks this machine."""
        data = self._authenticated("GET", "/devices").json()
        if not isinstance(data, list):
            raise GatehouseError(200, "UNEXPECTED_RESPONSE", "devices did not answer a list")
        return [Device.from_json(item) for item in data]

    def drop_device(self, device_id: str) -> None:
        """Drops one of the user's devices: its sessions and refresh tokens end at once. Counted by
        the reset cooldown (ResetCooldownError); NotFoundError (DEVICE_NOT_FOUND) for a device that
        is not the user's."""
        self._authenticated("DELETE", "/devices/" + quote(device_id, safe=""))

    # ---- files -------------------------------------------------------------------------------

    def download_file(self, file_id: str, dest: Union[str, "os.PathLike[str]"]) -> Path:
        """Downloads a file to ``dest``, decrypting an encrypted one (``is_encrypted`` in the
        application context) as it streams when the client has the files encryption key. The
        bytes go to a temporary file beside ``dest`` that becomes ``dest`` only once the whole
        file has arrived, its SHA-256 is the signed ``x-content-sha256`` and every chunk
        decrypted; otherwise it is removed and the error raised (SignatureError
        CONTENT_MISMATCH, EncryptedFileError). Memory stays flat: one read and one chunk.
        Without the key an encrypted file is saved as stored, once its header shows the format."""
        encrypted = self._is_encrypted(file_id)
        answer = self._authenticated("GET", f"/files/{quote(file_id, safe='')}/download", download=True)
        target = Path(dest)
        try:
            fd, partial = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=str(target.parent))
        except BaseException:
            answer.exchange.close()
            raise
        try:
            with os.fdopen(fd, "wb") as out:
                self._stream_to(answer, out, encrypted)
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, target)
        except BaseException:
            answer.exchange.close()
            try:
                os.unlink(partial)
            except FileNotFoundError:
                pass
            raise
        return target

    def _stream_to(self, answer: _Answer, out: Any, encrypted: bool) -> None:
        exchange = answer.exchange
        expected = exchange.headers.get("x-content-sha256")
        digest = hashlib.sha256()
        decryptor = Decryptor(self._files_key) if encrypted and self._files_key is not None else None
        head = b""
        while True:
            block = exchange.read(READ_SIZE)
            if not block:
                break
            digest.update(block)
            if decryptor is not None:
                out.write(decryptor.update(block))
                continue
            if encrypted and len(head) < len(MAGIC):
                head += block[: len(MAGIC) - len(head)]
                if head != MAGIC[: len(head)]:
                    raise EncryptedFileError("NOT_ENCRYPTED_FILE", "not a Gatehouse encrypted file")
            out.write(block)
        exchange.close()
        # Checked whenever the server sent it; required (and signed) with pinned keys.
        if expected is not None and not hmac.compare_digest(digest.hexdigest(), expected):
            raise SignatureError("CONTENT_MISMATCH", f"the downloaded bytes have SHA-256 {digest.hexdigest()}, not the signed x-content-sha256 {expected}", exchange.status)
        if decryptor is not None:
            out.write(decryptor.finish())
        elif encrypted and head != MAGIC:
            raise EncryptedFileError("TRUNCATED", "encrypted file is truncated")

    # ---- offline license files ----------------------------------------------------------------

    def request_license_file(self) -> IssuedLicenseFile:
        """Asks the server for a signed license file of the logged-in user (for this device when
        the client has a hardware id); save ``license_file`` and check it offline with
        verify_license_file. With the client's ``license_file`` path, the file is verified and
        kept there for app_context(offline_fallback=True)."""
        issued = IssuedLicenseFile.from_json(self._authenticated("POST", "/license_file", self._device()).json())
        if self._license_file is not None:
            self.verify_license_file(issued.license_file)
            store_license_file(self._license_file, issued.license_file)
        return issued

    def verify_license_file(self, text: str, now: Union[None, float, datetime] = None, newest_seen: Union[None, float, datetime] = None, clock_tolerance_seconds: float = DEFAULT_CLOCK_TOLERANCE_SECONDS) -> LicenseClaims:
        """verify_license_file (license_file.py) with this client's pinned keys, application id
        and hardware id; ``newest_seen`` defaults to the newest signed time this client saw."""
        if self._pinned is None or self.application_id is None:
            raise ValueError("verify_license_file needs response_signing_public_keys and application_id")
        seen = [t for t in (newest_seen, self._newest_signed_time) if t is not None]
        newest = max((t.timestamp() if isinstance(t, datetime) else float(t)) for t in seen) if seen else None
        claims = verify_license_file(text, self._pinned, self.application_id, self.hardware_id, now, newest, clock_tolerance_seconds)
        with self._lock:
            self._entitlements = claims.entitlements
        return claims

    # ---- the exchange ---------------------------------------------------------------------------

    def _device(self) -> Dict[str, str]:
        return {} if self.hardware_id is None else {"hardware_id": self.hardware_id}

    def _machine(self, device: Optional[Dict[str, str]]) -> Dict[str, Any]:
        """The machine as sign-up and login give it: its hardware id and what it is."""
        info = self.device if device is None else device
        return {**self._device(), **({} if info is None else {"device": info})}

    def _password_credentials(self, username: Optional[str], password: Optional[str], what: str) -> Dict[str, str]:
        if username is not None and password is not None:
            return {"username": username, "password": password}
        if username is not None or password is not None:
            raise ValueError(f"{what} needs both username and password")
        with self._lock:
            kept = self._credentials
        if kept is None or "password" not in kept:
            raise ValueError(f"{what} needs a username and password: pass them, or log in with them first")
        return dict(kept)

    def _is_encrypted(self, file_id: str) -> bool:
        def listed() -> Optional[bool]:
            context = self._context
            found = None if context is None else next((f for f in context.application.files if f.id == file_id), None)
            return None if found is None else found.is_encrypted

        known = listed()
        if known is None:
            self.app_context()
            known = listed()
        # Not listed even now: the server answers the download with 404 FILE_NOT_FOUND.
        return bool(known)

    def _json(self, method: str, path: str, body: Any) -> Any:
        answer = self._send(method, path, body=body)
        if not answer.ok:
            raise answer.error()
        return answer.json() if answer.body else None

    def _authenticated(self, method: str, path: str, body: Any = None, download: bool = False) -> _Answer:
        """A request as the current user; on SESSION_EXPIRED, logs in again once (when it has
        credentials) and retries once. A refused request did nothing, so a retry is safe."""
        if self._token is None and (self._credentials is not None or self._kept_refresh()):
            # The session was ended on purpose (a password change, a device reset), or the client
            # starts with only its refresh token: open a new one.
            self._renew(None)
        token = self._token
        first = self._send(method, path, token=token, body=body, download=download)
        if first.ok:
            return first
        error = first.error()
        if not isinstance(error, SessionExpiredError) or (self._credentials is None and not self._kept_refresh()):
            raise error
        self._renew(token)
        second = self._send(method, path, token=self._token, body=body, download=download)
        if second.ok:
            return second
        raise second.error()

    def _kept_refresh(self) -> bool:
        return self._refresh_tokens is not None and self._refresh_tokens.load() is not None

    def _renew(self, expired: Optional[str]) -> None:
        """Logs in again with the kept credentials, or refreshes with the kept refresh token, unless
        another thread already replaced ``expired``."""
        with self._lock:
            if self._token != expired and self._token is not None:
                return
            credentials = self._credentials
            kept = None if credentials is not None or self._refresh_tokens is None else self._refresh_tokens.load()
            if credentials is None and kept is None:
                raise SessionExpiredError(401, "SESSION_EXPIRED", "the session ended and the client has no credentials to renew it")
            if kept is not None:
                self._refresh_with(kept)
                return
            assert credentials is not None
            self.login(credentials.get("username"), credentials.get("password"), code=credentials.get("code"))

    def _send(self, method: str, path: str, token: Optional[str] = None, body: Any = None, download: bool = False) -> _Answer:
        """One request; signed again on the server's time and sent once more when refused as
        SIGNATURE_EXPIRED while the client went by a clock the answer shows to be off."""
        answer = self._send_once(method, path, token, body, download)
        if self._request_key is None:
            return answer
        moved = self._clock.observe(answer.exchange.headers)
        if not moved or answer.status != 401 or answer.error().error_code != "SIGNATURE_EXPIRED":
            return answer
        again = self._send_once(method, path, token, body, download)
        self._clock.observe(again.exchange.headers)
        return again

    def _send_once(self, method: str, path: str, token: Optional[str], body: Any, download: bool) -> _Answer:
        target = self._origin.prefix + INTEGRATION + path
        headers = {"x-api-key": self._api_key, "x-api-secret": self._api_secret, "accept": "application/json"}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        # The body is serialized once: the bytes signed are the bytes sent.
        data = None if body is None else json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        if data is not None:
            headers["content-type"] = "application/json"
        if self._request_key is not None:
            headers.update(signing.sign_request(self._request_key, method, target, self._api_key, headers, data or b"", str(int(self._clock.now()))))
        elif self._pinned is not None:
            headers["x-nonce"] = signing.fresh_nonce()
        sent = _Sent(method, target, headers.get("x-nonce", ""), headers.get("x-signature", ""))
        exchange = send(self._origin, method, target, headers, data, self._timeout, self._ssl_context)
        streams = download and method == "GET" and exchange.status in (200, 206)
        try:
            received = None if streams else exchange.read_all()
            if self._pinned is not None:
                assert self.application_id is not None
                signed_at = signing.verify_response(
                    self._pinned, self.application_id, method, target, sent.nonce, sent.signature, exchange.status, exchange.headers, received or b"", streams
                )
                if streams and exchange.status == 206:
                    raise SignatureError("PARTIAL_CONTENT", "the download was answered with a part of the file, which cannot be checked against its digest", 206)
                with self._lock:
                    if self._newest_signed_time is None or signed_at > self._newest_signed_time:
                        self._newest_signed_time = signed_at
            elif streams and exchange.status == 206:
                raise GatehouseError(206, "UNEXPECTED_RESPONSE", "the download was answered with a part of the file")
        except BaseException:
            exchange.close()
            raise
        return _Answer(exchange, received, sent)


def _credentials(username: Optional[str], password: Optional[str], code: Optional[str], what: str) -> Dict[str, str]:
    if code is not None and username is None and password is None:
        return {"code": code}
    if code is None and username is not None and password is not None:
        return {"username": username, "password": password}
    raise ValueError(f"{what} takes a username and password, or a code")


def _variable_path(name: str) -> str:
    return "/user_variables/" + quote(name, safe="")
