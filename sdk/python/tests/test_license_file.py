"""verify_license_file, offline (the shared spec's signing.md, "Offline license files"): files
made here with keys generated here, in the documented envelope, and attacked: a forged or
re-signed payload, another application, another machine, an expired file, a clock turned back."""

from __future__ import annotations

import base64
import json
import unittest
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, Optional

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gatehouse import LicenseFileError, verify_license_file
from gatehouse.license_file import BEGIN, END, hardware_id_digest
from gatehouse.signing import key_id

APP = "0b6f5a2e-8d1c-4f3a-9e7b-2c4d6f8a0b1c"
IAT = 1_780_920_000
DAY = 86_400


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Issuer:
    def __init__(self) -> None:
        self.key = Ed25519PrivateKey.generate()
        raw = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public = base64.b64encode(raw).decode()
        self.kid = key_id(self.public)

    def claims(self, **overrides: Any) -> Dict[str, Any]:
        claims: Dict[str, Any] = {
            "app": APP,
            "sub": str(uuid.uuid4()),
            "username": "alice",
            "hwid_sha256": hardware_id_digest(APP, "machine-1"),
            "membership": {"is_lifetime": False, "active_until": "2026-07-01T00:00:00.000Z"},
            "iat": IAT,
            "exp": IAT + 14 * DAY,
            "jti": str(uuid.uuid4()),
        }
        claims.update(overrides)
        return claims

    def file(self, claims: Optional[Dict[str, Any]] = None, kid: Optional[str] = None, signer: Optional[Ed25519PrivateKey] = None, payload: Optional[str] = None) -> str:
        kid = kid or self.kid
        payload = payload or _b64url(json.dumps(claims or self.claims()).encode())
        sig = (signer or self.key).sign(f"gatehouse-license-v1\n{kid}\n{payload}".encode())
        envelope = {"v": 1, "alg": "ed25519", "kid": kid, "payload": payload, "sig": _b64url(sig)}
        return f"{BEGIN}\n{base64.b64encode(json.dumps(envelope).encode()).decode()}\n{END}\n"


class VerifyLicenseFile(unittest.TestCase):
    def setUp(self) -> None:
        self.issuer = Issuer()

    def verify(self, text: str, hardware_id: Optional[str] = "machine-1", now: float = IAT + DAY, **options: Any) -> Any:
        return verify_license_file(text, self.issuer.public, APP, hardware_id, now=now, **options)

    def refused(self, code: str, text: str, **options: Any) -> None:
        with self.assertRaises(LicenseFileError) as caught:
            self.verify(text, **options)
        self.assertEqual(caught.exception.code, code)

    def test_a_good_file_gives_its_claims(self) -> None:
        claims = self.issuer.claims()
        verified = self.verify(self.issuer.file(claims))
        self.assertEqual((verified.app, verified.sub, verified.username, verified.jti), (APP, claims["sub"], "alice", claims["jti"]))
        self.assertEqual(verified.exp, datetime.fromtimestamp(IAT + 14 * DAY, timezone.utc))
        self.assertEqual(verified.membership.active_until, datetime(2026, 7, 1, tzinfo=timezone.utc))
        self.assertFalse(verified.membership.is_lifetime)
        self.assertEqual(verified.key_id, self.issuer.kid)

    def test_entitlements_and_plan_are_read_and_older_files_have_none(self) -> None:
        plan = {"id": str(uuid.uuid4()), "name": "Pro"}
        verified = self.verify(self.issuer.file(self.issuer.claims(entitlements=["export", "sync"], plan=plan)))
        self.assertEqual(verified.entitlements, ("export", "sync"))
        self.assertEqual((verified.plan.id, verified.plan.name), (plan["id"], "Pro"))
        older = self.verify(self.issuer.file())
        self.assertEqual((older.entitlements, older.plan), ((), None))
        self.refused("MALFORMED", self.issuer.file(self.issuer.claims(entitlements="export")))
        self.refused("MALFORMED", self.issuer.file(self.issuer.claims(plan={"id": 1})))

    def test_any_pinned_key_of_a_rotation_verifies_and_a_datetime_clock_works(self) -> None:
        other = Issuer()
        text = self.issuer.file()
        verified = verify_license_file(text, [other.public, self.issuer.public], APP, "machine-1", now=datetime.fromtimestamp(IAT + 60, timezone.utc))
        self.assertEqual(verified.username, "alice")

    def test_a_file_without_device_binding_verifies_on_any_machine(self) -> None:
        text = self.issuer.file(self.issuer.claims(hwid_sha256=None))
        self.assertIsNone(self.verify(text, hardware_id=None).hwid_sha256)
        self.assertIsNone(self.verify(text, hardware_id="elsewhere").hwid_sha256)

    def test_forged_and_foreign_files_are_refused(self) -> None:
        forger = Ed25519PrivateKey.generate()
        self.refused("SIGNATURE_INVALID", self.issuer.file(signer=forger))  # signed by a key not pinned
        self.refused("SIGNATURE_INVALID", Issuer().file())  # another application's key
        # A payload changed after signing (lifetime for free): the signature no longer verifies.
        good = self.issuer.file()
        envelope = json.loads(base64.b64decode(good.splitlines()[1]))
        envelope["payload"] = _b64url(json.dumps(self.issuer.claims(membership={"is_lifetime": True, "active_until": None})).encode())
        tampered = f"{BEGIN}\n{base64.b64encode(json.dumps(envelope).encode()).decode()}\n{END}"
        self.refused("SIGNATURE_INVALID", tampered)
        # The key id names a pinned key but the signature is another key's.
        self.refused("SIGNATURE_INVALID", self.issuer.file(kid=self.issuer.kid, signer=forger))

    def test_another_application_or_machine_is_refused(self) -> None:
        self.refused("OTHER_APPLICATION", self.issuer.file(self.issuer.claims(app=str(uuid.uuid4()))))
        text = self.issuer.file()
        self.refused("OTHER_MACHINE", text, hardware_id="machine-2")
        self.refused("OTHER_MACHINE", text, hardware_id=None)

    def test_expiry_and_a_clock_turned_back(self) -> None:
        text = self.issuer.file()
        self.refused("EXPIRED", text, now=IAT + 14 * DAY)
        # Within the tolerance of a slightly slow clock right after issue: fine.
        self.assertEqual(self.verify(text, now=IAT - 30).username, "alice")
        # Behind the file's own iat, or behind a newer signed time the client saw: refused.
        self.refused("CLOCK_ROLLED_BACK", text, now=IAT - 3600)
        self.refused("CLOCK_ROLLED_BACK", text, now=IAT + DAY, newest_seen=IAT + 10 * DAY)
        self.assertEqual(self.verify(text, now=IAT + DAY, newest_seen=IAT + DAY - 10).username, "alice")

    def test_malformed_text_is_refused(self) -> None:
        for text in ("", "hello", f"{BEGIN}\n%%%\n{END}", f"{BEGIN}\n{base64.b64encode(b'[1]').decode()}\n{END}",
                     f"{BEGIN}\n{base64.b64encode(json.dumps({'v': 2, 'alg': 'ed25519', 'kid': 'x', 'payload': 'x', 'sig': 'x'}).encode()).decode()}\n{END}"):
            with self.subTest(text=text):
                self.refused("MALFORMED", text)
        # Signed, but the claims are not the documented shape.
        self.refused("MALFORMED", self.issuer.file(payload=_b64url(b'{"app": "x"}')))


if __name__ == "__main__":
    unittest.main()
