"""Signed answers and signed requests against the real server, attacked as a man in the middle
would (support.tampering_proxy): a flipped byte, a forged status, stripped headers, a replayed
answer, a key that is not pinned, a rotation; and request signing with the right key, none, a
wrong one, and a device clock ten minutes off."""

from __future__ import annotations

import time
import unittest
from typing import Dict, List, Tuple
from unittest import mock

import gatehouse
from gatehouse import EncryptedFileError
from support import App, Server, file_sha256, flip_byte, tampering_proxy, temp_dir, unique

server: Server
app: App


def setUpModule() -> None:
    global server, app
    server = Server()
    app = server.create_app(device_auth=False, ban_propagation=False)


Answer = Tuple[int, Dict[str, str], bytes]


class ThroughAProxy(unittest.TestCase):
    def through(self, tamper) -> str:  # type: ignore[no-untyped-def]
        proxy, base = tampering_proxy(server.base, tamper)
        self.addCleanup(proxy.server_close)
        self.addCleanup(proxy.shutdown)
        return base

    def logged_in(self, base: str, **options) -> gatehouse.GatehouseClient:  # type: ignore[no-untyped-def]
        name = unique("mitm")
        direct = server.client(app)
        direct.sign_up(name, "mitm-password-1")
        direct.activate_license(server.license(app), name, "mitm-password-1")
        client = server.client(app, base_url=base, **options)
        client.login(name, "mitm-password-1")
        return client

    def test_an_honest_proxy_changes_nothing(self) -> None:
        client = self.logged_in(self.through(lambda path, status, headers, body: (status, headers, body)))
        self.assertEqual(client.app_context().application.id, app.id)
        self.assertIsNotNone(client.newest_signed_time)

    def test_a_flipped_byte_in_the_context_raises_signature_error(self) -> None:
        def tamper(path: str, status: int, headers: Dict[str, str], body: bytes) -> Answer:
            return (status, headers, flip_byte(body, 20) if path.endswith("/app_context") else body)

        client = self.logged_in(self.through(tamper))
        with self.assertRaises(gatehouse.SignatureError) as caught:
            client.app_context()
        self.assertEqual(caught.exception.code, "SIGNATURE_INVALID")
        self.assertIsNone(client.last_app_context)  # nothing of the answer was taken

    def test_a_forged_refusal_and_stripped_headers(self) -> None:
        def forge(path: str, status: int, headers: Dict[str, str], body: bytes) -> Answer:
            if path.endswith("/app_context"):
                return (403, headers, b'{"error_code":"BANNED","message":"banned","detail":"banned"}')
            return (status, headers, body)

        client = self.logged_in(self.through(forge))
        with self.assertRaises(gatehouse.SignatureError) as caught:
            client.app_context()  # not BannedError: a forged refusal is refused too
        self.assertEqual((caught.exception.code, caught.exception.status), ("SIGNATURE_INVALID", 403))

        def strip(path: str, status: int, headers: Dict[str, str], body: bytes) -> Answer:
            return (status, {k: v for k, v in headers.items() if k not in ("x-signature", "x-timestamp")}, body)

        with self.assertRaises(gatehouse.SignatureError) as stripped:
            server.client(app, base_url=self.through(strip)).sign_up(unique("strip"), "strip-password-1")
        self.assertEqual(stripped.exception.code, "SIGNATURE_MISSING")

    def test_a_replayed_answer_does_not_verify(self) -> None:
        recorded: List[Answer] = []

        def replay(path: str, status: int, headers: Dict[str, str], body: bytes) -> Answer:
            if not path.endswith("/app_context"):
                return (status, headers, body)
            if not recorded:
                recorded.append((status, headers, body))
            return recorded[0]

        client = self.logged_in(self.through(replay))
        client.app_context()
        with self.assertRaises(gatehouse.SignatureError) as caught:
            client.app_context()  # the first answer again: it binds the first request's nonce
        self.assertEqual(caught.exception.code, "SIGNATURE_INVALID")

    def test_a_tampered_download_is_refused_and_nothing_is_kept(self) -> None:
        file_id, _ = server.upload(app, unique("plain") + ".bin", 300_000, encrypted=False)

        def tamper(path: str, status: int, headers: Dict[str, str], body: bytes) -> Answer:
            return (status, headers, flip_byte(body, 1000) if path.endswith("/download") else body)

        base = self.through(tamper)
        for pinned in (True, False):
            with self.subTest(pinned=pinned):
                client = self.logged_in(base, pinned=pinned)
                folder = temp_dir(self)
                dest = folder / "plain.bin"
                with self.assertRaises(gatehouse.SignatureError) as caught:
                    client.download_file(file_id, dest)
                self.assertEqual(caught.exception.code, "CONTENT_MISMATCH")
                self.assertEqual(list(folder.iterdir()), [])  # no file, no partial file
                client.logout()


    def test_an_encrypted_download_cut_short_or_altered_is_refused(self) -> None:
        file_id, _ = server.upload(app, unique("secret") + ".bin", 5 * 65_536 + 100, encrypted=True)
        full_chunk = 65_536 + 16

        def cut(path: str, status: int, headers: Dict[str, str], body: bytes) -> Answer:
            if not path.endswith("/download"):
                return (status, headers, body)
            # Two whole chunks dropped, and the signed digest of the whole file taken away.
            return (status, {k: v for k, v in headers.items() if k != "x-content-sha256"}, body[: 17 + 3 * full_chunk])

        def alter(path: str, status: int, headers: Dict[str, str], body: bytes) -> Answer:
            return (status, headers, flip_byte(body, 17 + 100) if path.endswith("/download") else body)

        cases = [(cut, False, EncryptedFileError, "TRUNCATED"), (cut, True, gatehouse.SignatureError, "SIGNATURE_MISSING"), (alter, False, EncryptedFileError, "AUTHENTICATION_FAILED")]
        for tamper, pinned, error, code in cases:
            with self.subTest(tamper=tamper.__name__, pinned=pinned):
                client = self.logged_in(self.through(tamper), pinned=pinned)
                folder = temp_dir(self)
                with self.assertRaises(error) as caught:
                    client.download_file(file_id, folder / "secret.bin")
                self.assertEqual(caught.exception.code, code)  # type: ignore[attr-defined]
                self.assertEqual(list(folder.iterdir()), [])
                client.logout()


class PinnedKeys(unittest.TestCase):
    def test_a_key_that_is_not_pinned_fails_every_answer_refusals_included(self) -> None:
        other = server.create_app(device_auth=False)
        client = gatehouse.GatehouseClient(server.base, app.api_key, app.api_secret, response_signing_public_keys=other.public_key, application_id=app.id)
        with self.assertRaises(gatehouse.SignatureError):
            client.sign_up(unique("unpinned"), "unpinned-password-1")
        with self.assertRaises(gatehouse.SignatureError):
            client.login("nobody", "wrong-password-1")
        # The right key but another application's id: the signature binds the application.
        wrong_app = gatehouse.GatehouseClient(server.base, app.api_key, app.api_secret, response_signing_public_keys=app.public_key, application_id=other.id)
        with self.assertRaises(gatehouse.SignatureError):
            wrong_app.login("nobody", "wrong-password-1")

    def test_refusals_are_verified_then_typed(self) -> None:
        with self.assertRaises(gatehouse.InvalidCredentialsError):
            server.client(app).login("nobody", "wrong-password-1")

    def test_a_rotation_pinning_both_keys(self) -> None:
        rotating = server.create_app(device_auth=False)
        old = rotating.public_key
        rotated = server.console("POST", f"/applications/{rotating.id}/credentials/response_signing_key/rotate", expect=200)
        new = rotated["response_signing_public_key"]
        both = server.client(rotating, response_signing_public_keys=[new, old])
        only_old = server.client(rotating, response_signing_public_keys=old)
        both.sign_up(unique("both"), "rotate-password-1")
        only_old.sign_up(unique("old"), "rotate-password-1")  # the previous key still signs
        server.console("DELETE", f"/applications/{rotating.id}/credentials/response_signing_key/previous", expect=204)
        both.sign_up(unique("both"), "rotate-password-1")
        with self.assertRaises(gatehouse.SignatureError):
            only_old.sign_up(unique("old"), "rotate-password-1")


class RequestSigning(unittest.TestCase):
    def setUp(self) -> None:
        self.app = server.create_app(device_auth=False, request_signing=True, ban_propagation=False)

    def test_every_method_works_with_the_key_and_answers_bind_the_request_signature(self) -> None:
        client = server.client(self.app, request_signing_key=self.app.request_signing_key)
        name = unique("signer")
        client.sign_up(name, "signer-password-1")
        client.activate_license(server.license(self.app), name, "signer-password-1")
        client.login(name, "signer-password-1")
        file_id, digest = server.upload(self.app, "signed.bin", 100_000, encrypted=True)
        self.assertEqual(client.app_context().application.files[0].id, file_id)
        dest = client.download_file(file_id, temp_dir(self) / "signed.bin")
        self.assertEqual(file_sha256(dest), digest)
        client.logout()

    def test_without_the_key_or_with_a_wrong_one_requests_are_refused(self) -> None:
        with self.assertRaises(gatehouse.RequestSignatureRefusedError) as missing:
            server.client(self.app).sign_up(unique("nokey"), "nokey-password-1")
        self.assertEqual(missing.exception.error_code, "SIGNATURE_REQUIRED")
        wrong_key = server.create_app(device_auth=False).request_signing_key
        with self.assertRaises(gatehouse.RequestSignatureRefusedError) as wrong:
            server.client(self.app, request_signing_key=wrong_key).sign_up(unique("wrongkey"), "wrongkey-password-1")
        self.assertEqual(wrong.exception.error_code, "SIGNATURE_INVALID")

    def test_a_device_clock_ten_minutes_behind_costs_one_round_trip(self) -> None:
        client = server.client(self.app, request_signing_key=self.app.request_signing_key)
        real_time = time.time
        with mock.patch("time.time", lambda: real_time() - 600):
            summary = client.sign_up(unique("late"), "late-password-1")  # refused SIGNATURE_EXPIRED once, then signed on the server's time
            again = client.sign_up(unique("late"), "late-password-1")
        self.assertNotEqual(summary.id, again.id)


if __name__ == "__main__":
    unittest.main()
