"""app_context(offline_fallback=True) against a signed stand-in (support.SignedFake): a server
that cannot be reached (no connection, 503 signed or not) makes the client answer from its stored
license file; a refusal or a 500 does not. tests/outage/postgres-stopped.test.ts runs it against
the real server with its database stopped."""

from __future__ import annotations

import base64
import json
import os
import socket
import stat
import time
import unittest
import uuid
from typing import Any, Dict

import gatehouse
from gatehouse.license_file import BEGIN, END, hardware_id_digest
from support import SignedFake, temp_dir

UNAVAILABLE = {"error_code": "SERVICE_UNAVAILABLE", "message": "the database cannot be reached; try again shortly"}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def license_file(fake: SignedFake, hardware_id: str = "hw-1") -> str:
    now = int(time.time())
    claims: Dict[str, Any] = {
        "app": fake.application_id,
        "sub": str(uuid.uuid4()),
        "username": "alice",
        "hwid_sha256": hardware_id_digest(fake.application_id, hardware_id),
        "membership": {"is_lifetime": True, "active_until": None},
        "iat": now - 60,
        "exp": now + 14 * 86_400,
        "jti": str(uuid.uuid4()),
    }
    payload = _b64url(json.dumps(claims).encode())
    sig = fake.private_key.sign(f"gatehouse-license-v1\n{fake.key_id}\n{payload}".encode())
    envelope = {"v": 1, "alg": "ed25519", "kid": fake.key_id, "payload": payload, "sig": _b64url(sig)}
    return f"{BEGIN}\n{base64.b64encode(json.dumps(envelope).encode()).decode()}\n{END}\n"


class OfflineFallback(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = SignedFake()
        self.addCleanup(self.fake.close)
        self.path = temp_dir(self) / "license.txt"
        self.client = self.fake.client(hardware_id="hw-1", license_file=self.path)

    def keep_file(self) -> None:
        self.fake.answer(200, {"license_file": license_file(self.fake), "expires_at": "2030-01-01T00:00:00.000Z"})
        self.client.request_license_file()

    def test_request_license_file_keeps_the_verified_file_for_its_owner_only(self) -> None:
        self.keep_file()
        self.assertTrue(self.path.read_text(encoding="utf-8").startswith(BEGIN))
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o600)
        self.assertEqual(self.client.verify_license_file(self.path.read_text(encoding="utf-8")).username, "alice")

    def test_a_signed_503_falls_back_to_the_stored_file(self) -> None:
        self.keep_file()
        self.fake.answer(503, UNAVAILABLE, {"retry-after": "5"})
        context = self.client.app_context(offline_fallback=True)
        self.assertIsInstance(context, gatehouse.OfflineAppContext)
        assert isinstance(context, gatehouse.OfflineAppContext)
        self.assertTrue(context.offline)
        self.assertEqual(context.user.username, "alice")
        self.assertTrue(context.user.membership.is_active)
        self.assertIsInstance(context.cause, gatehouse.ServerError)
        self.assertEqual((context.cause.status, context.cause.error_code, context.cause.retry_after_seconds), (503, "SERVICE_UNAVAILABLE", 5))

    def test_no_connection_falls_back_too(self) -> None:
        self.keep_file()
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            port = holder.getsockname()[1]
        client = gatehouse.GatehouseClient(
            f"http://127.0.0.1:{port}", "gh_pk_fake", "gh_sk_fake", response_signing_public_keys=self.fake.public_key,
            application_id=self.fake.application_id, hardware_id="hw-1", license_file=self.path, timeout=5,
        )
        context = client.app_context(offline_fallback=True)
        assert isinstance(context, gatehouse.OfflineAppContext)
        self.assertIsInstance(context.cause, ConnectionRefusedError)

    def test_a_500_or_a_refusal_is_raised_as_without_the_fallback(self) -> None:
        self.keep_file()
        self.fake.answer(500, {"error_code": "INTERNAL_ERROR", "message": "internal server error"})
        with self.assertRaises(gatehouse.ServerError):
            self.client.app_context(offline_fallback=True)
        self.fake.answer(401, {"error_code": "LOGIN_REQUIRED", "message": "Only logged in users are allowed to access"})
        with self.assertRaises(gatehouse.LoginRequiredError):
            self.client.app_context(offline_fallback=True)

    def test_without_the_fallback_or_a_stored_file_the_503_is_raised(self) -> None:
        self.fake.answer(503, UNAVAILABLE)
        with self.assertRaises(gatehouse.ServerError):
            self.client.app_context(offline_fallback=True)
        self.keep_file()
        self.fake.answer(503, UNAVAILABLE)
        with self.assertRaises(gatehouse.ServerError):
            self.client.app_context()

    def test_a_stored_file_for_another_machine_is_refused(self) -> None:
        self.path.write_text(license_file(self.fake, hardware_id="hw-2"), encoding="utf-8")
        self.fake.answer(503, UNAVAILABLE)
        with self.assertRaises(gatehouse.LicenseFileError) as caught:
            self.client.app_context(offline_fallback=True)
        self.assertEqual(caught.exception.code, "OTHER_MACHINE")

    def test_license_file_needs_the_pinned_keys(self) -> None:
        with self.assertRaises(ValueError):
            gatehouse.GatehouseClient(self.fake.base, "k", "s", license_file=self.path)


if __name__ == "__main__":
    unittest.main()
