"""What the tests need beside the SDK: the real server started by
tests/python-sdk/python-sdk.test.ts (GATEHOUSE_URL and the owner's GATEHOUSE_CONSOLE_TOKEN),
console and admin calls to arrange things on it, the in-process server whose clock the tests of
time move (ClockedServer) and the beats a heartbeat reports (Beats), a proxy that tampers with
answers, and a small signed fake of endpoints the server does not have yet. Standard library only."""

from __future__ import annotations

import base64
import hashlib
import http.client
import http.server
import json
import os
import random
import socketserver
import tempfile
import threading
import time
import unittest
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import gatehouse
from gatehouse import signing
from gatehouse._time import parse_timestamp

REPO_ROOT = Path(__file__).resolve().parents[3]
MiB = 1024 * 1024

def unique(prefix: str) -> str:
    """A name no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def live_url() -> str:
    url = os.environ.get("GATEHOUSE_URL")
    if not url or not os.environ.get("GATEHOUSE_CONSOLE_TOKEN"):
        raise unittest.SkipTest("no server: set GATEHOUSE_URL and GATEHOUSE_CONSOLE_TOKEN (tests/python-sdk/python-sdk.test.ts does)")
    return url.rstrip("/")


def raw_request(base: str, method: str, path: str, headers: Dict[str, str], body: Any = None) -> Tuple[int, Dict[str, str], bytes]:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


class App:
    """An application made through the console, with its credentials."""

    def __init__(self, created: Dict[str, Any]) -> None:
        self.application: Dict[str, Any] = created["application"]
        self.id: str = self.application["id"]
        credentials = created["credentials"]
        self.api_key: str = credentials["api_key"]
        self.api_secret: str = credentials["api_secret"]
        self.admin_api_key: str = credentials["admin_api_key"]
        self.files_encryption_key: str = credentials["files_encryption_key"]
        self.request_signing_key: str = credentials["request_signing_key"]
        self.public_key: str = self.application["response_signing_public_key"]


class Server:
    """The live server: console calls as its owner, admin calls as an application."""

    def __init__(self) -> None:
        self.base = live_url()
        self.console_token = os.environ["GATEHOUSE_CONSOLE_TOKEN"]

    def console(self, method: str, path: str, body: Any = None, expect: Optional[int] = None) -> Any:
        headers = {"authorization": f"Bearer {self.console_token}"}
        data = None
        if body is not None:
            headers["content-type"] = "application/json"
            data = json.dumps(body).encode()
        status, _, raw = raw_request(self.base, method, "/api/console" + path, headers, data)
        if expect is not None and status != expect:
            raise AssertionError(f"console {method} {path}: {status} {raw[:300]!r}")
        return json.loads(raw) if raw else None

    def create_app(self, **settings: Any) -> App:
        body = {"name": f"Python SDK {uuid.uuid4().hex[:8]}", **settings}
        return App(self.console("POST", "/applications", body, expect=201))

    def licenses(self, app: App, count: int, minutes: Optional[int]) -> List[str]:
        created = self.console("POST", f"/applications/{app.id}/licenses", {"count": count, "minutes": minutes}, expect=201)
        return [license["code"] for license in created["licenses"]]

    def license(self, app: App, minutes: Optional[int] = 60) -> str:
        return self.licenses(app, 1, minutes)[0]

    def client(self, app: App, base_url: Optional[str] = None, pinned: bool = True, **options: Any) -> gatehouse.GatehouseClient:
        """A client of ``app``: with its files key and, unless ``pinned`` is False, its pinned key."""
        defaults: Dict[str, Any] = {"files_encryption_key": app.files_encryption_key}
        if pinned:
            defaults.update(response_signing_public_keys=app.public_key, application_id=app.id)
        return gatehouse.GatehouseClient(base_url or self.base, app.api_key, app.api_secret, **{**defaults, **options})

    def member(self, app: App, username: str, minutes: Optional[int] = 60, hardware_id: Optional[str] = None, **options: Any) -> Tuple[gatehouse.GatehouseClient, str]:
        """A password user with ``minutes`` of membership, logged in; the client and the user id."""
        client = self.client(app, hardware_id=hardware_id or f"hw-{username}", **options)
        summary = client.sign_up(username, "member-password-1")
        client.activate_license(self.license(app, minutes), username, "member-password-1")
        client.login(username, "member-password-1")
        return client, summary.id

    def upload(self, app: App, name: str, size: int, encrypted: bool, is_public: bool = False, seed: int = 21) -> Tuple[str, str]:
        """Uploads ``size`` deterministic bytes through the admin API, streaming (never all in
        memory), and waits for COMPLETED; the file id and the SHA-256 of the plaintext."""
        boundary = "gatehouse-python-sdk-" + uuid.uuid4().hex
        fields = [("name", name), ("is_public", "true" if is_public else "false"), ("store_encrypted", "true" if encrypted else "false")]
        head = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields)
        head += f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
        tail = f"\r\n--{boundary}--\r\n".encode()
        digest = hashlib.sha256()

        def body() -> Iterator[bytes]:
            yield head
            for piece in deterministic_bytes(size, seed):
                digest.update(piece)
                yield piece
            yield tail

        headers = {
            "authorization": f"Bearer {app.admin_api_key}",
            "content-type": f"multipart/form-data; boundary={boundary}",
            "content-length": str(len(head) + size + len(tail)),
        }
        status, _, raw = raw_request(self.base, "POST", "/api/admin/files", headers, body())
        if status != 201:
            raise AssertionError(f"upload {name}: {status} {raw[:300]!r}")
        file_id = json.loads(raw)["id"]
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            _, _, raw = raw_request(self.base, "GET", f"/api/admin/files/{file_id}", {"authorization": f"Bearer {app.admin_api_key}"})
            state = json.loads(raw)["processing_status"]
            if state == "COMPLETED":
                return file_id, digest.hexdigest()
            if state == "FAILED":
                raise AssertionError(f"processing of {name} failed: {raw!r}")
            time.sleep(0.1)  # polling a background job, not racing it: the loop waits for COMPLETED
        raise AssertionError(f"{name} still PENDING after 180 s")


def deterministic_bytes(size: int, seed: int, piece: int = MiB) -> Iterator[bytes]:
    """``size`` bytes from a seeded generator, in pieces of ``piece`` bytes."""
    rng = random.Random(seed)
    left = size
    while left > 0:
        n = min(piece, left)
        yield rng.randbytes(n)
        left -= n


def temp_dir(test: unittest.TestCase) -> Path:
    """A fresh folder removed when ``test`` ends."""
    folder = tempfile.TemporaryDirectory(prefix="gatehouse-python-sdk-")
    test.addCleanup(folder.cleanup)
    return Path(folder.name)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(MiB), b""):
            digest.update(block)
    return digest.hexdigest()


class _ThreadingServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(handler: type) -> Tuple[_ThreadingServer, str]:
    """Starts ``handler`` on a free loopback port in a thread; the server and its base URL."""
    server = _ThreadingServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class _Handler(http.server.BaseHTTPRequestHandler):
    """A quiet handler that reads a request's body and sends a whole answer, then closes."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def request_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def reply(self, status: int, headers: Dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "keep-alive"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(body)


def tampering_proxy(upstream: str, tamper: Callable[[str, int, Dict[str, str], bytes], Tuple[int, Dict[str, str], bytes]]) -> Tuple[_ThreadingServer, str]:
    """A proxy to ``upstream`` that hands every answer (path, status, headers, body) to
    ``tamper`` and sends on what it returns: a man in the middle."""

    class Proxy(_Handler):
        def _relay(self) -> None:
            body = self.request_body() or None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
            self.reply(*tamper(self.path, *raw_request(upstream, self.command, self.path, headers, body)))

        do_GET = do_POST = do_PUT = do_DELETE = _relay

    return serve(Proxy)


def flip_byte(data: bytes, at: int = -1) -> bytes:
    """``data`` with one bit of one byte changed."""
    position = at % len(data)
    return data[:position] + bytes([data[position] ^ 0x01]) + data[position + 1 :]


class SignedFake:
    """A stand-in for endpoints the server does not have yet: records each request and answers
    what the test queued, signed with a key made here, as the real server signs (docs/signing.md)."""

    application_id = "6f1d2c3b-4a59-4e6f-8a7b-9c0d1e2f3a4b"

    def __init__(self) -> None:
        self.private_key = Ed25519PrivateKey.generate()
        raw = self.private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_key = base64.b64encode(raw).decode()
        self.key_id = signing.key_id(self.public_key)
        self.requests: List[Dict[str, Any]] = []
        self.answers: List[Tuple[int, Dict[str, str], Any]] = []
        fake = self

        class Handler(_Handler):
            def _answer(self) -> None:
                raw_body = self.request_body()
                fake.requests.append({
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": json.loads(raw_body) if raw_body else None,
                })
                status, extra, payload = fake.answers.pop(0) if fake.answers else (404, {}, {"error_code": "NOT_FOUND", "message": "nothing queued"})
                body = b"" if payload is None else json.dumps(payload).encode()
                timestamp = str(int(time.time()))
                text = signing.response_signed_text(
                    timestamp, status, self.command, self.path, fake.application_id,
                    self.headers.get("x-nonce", ""), self.headers.get("x-signature", ""), hashlib.sha256(body).hexdigest(),
                )
                signature = base64.b64encode(fake.private_key.sign(text)).decode()
                content_type = {"content-type": "application/json"} if body else {}
                self.reply(status, {**extra, **content_type, "x-timestamp": timestamp, "x-signature": f"v1={fake.key_id}:{signature}"}, body)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

        self.server, self.base = serve(Handler)

    def answer(self, status: int, payload: Any = None, headers: Optional[Dict[str, str]] = None) -> None:
        self.answers.append((status, headers or {}, payload))

    def client(self, **options: Any) -> gatehouse.GatehouseClient:
        return gatehouse.GatehouseClient(
            self.base, "gh_pk_fake", "gh_sk_fake", response_signing_public_keys=self.public_key, application_id=self.application_id, **options
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


#: How long to wait for a state a test of time means to hit before calling it a failure.
PATIENCE_S = 30.0


class ClockedServer(Server):
    """The in-process server whose clock the test moves (GATEHOUSE_CLOCKED_URL, its owner's
    GATEHOUSE_CLOCKED_CONSOLE_TOKEN, GATEHOUSE_CLOCK_URL; tests/python-sdk/python-sdk.test.ts)."""

    def __init__(self) -> None:
        if not os.environ.get("GATEHOUSE_CLOCK_URL"):
            raise unittest.SkipTest("no server with a test clock: tests/python-sdk/python-sdk.test.ts starts one")
        super().__init__()
        self.base = os.environ["GATEHOUSE_CLOCKED_URL"].rstrip("/")
        self.console_token = os.environ["GATEHOUSE_CLOCKED_CONSOLE_TOKEN"]
        self.clock_url = os.environ["GATEHOUSE_CLOCK_URL"].rstrip("/")

    def advance(self, seconds: float) -> datetime:
        """Moves the server's clock on; its time now."""
        status, _, raw = raw_request(self.clock_url, "POST", f"/advance?ms={int(seconds * 1000)}", {})
        if status != 200:
            raise AssertionError(f"advance: {status} {raw!r}")
        return parse_timestamp(raw.decode())


class Beats:
    """The leases a heartbeat thread reports, and a wait for one renewed at or after a moment."""

    def __init__(self) -> None:
        self.leases: List[gatehouse.Lease] = []
        self.lost: List[gatehouse.GatehouseError] = []
        self._changed = threading.Condition()

    def on_beat(self, lease: gatehouse.Lease) -> None:
        with self._changed:
            self.leases.append(lease)
            self._changed.notify_all()

    def on_lease_lost(self, error: gatehouse.GatehouseError) -> None:
        with self._changed:
            self.lost.append(error)
            self._changed.notify_all()

    def wait_for_loss(self) -> gatehouse.GatehouseError:
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.lost) > 0, PATIENCE_S):
                raise AssertionError("the lost lease was not reported")
            return self.lost[0]

    def wait_for_beat_at(self, moment: datetime) -> gatehouse.Lease:
        with self._changed:
            if not self._changed.wait_for(lambda: any(lease.server_time >= moment for lease in self.leases), PATIENCE_S):
                raise AssertionError(f"no beat at or after {moment}")
            return next(lease for lease in self.leases if lease.server_time >= moment)
