"""The SDK against the shared vectors: docs/signing-vectors.json (response verdicts, request
signatures and license files) and tests/crypto/vectors/file-encryption-v1.json (the encrypted file format), plus
the tampering cases of docs/encrypted-file-format.md."""

from __future__ import annotations

import base64
import json
import struct
import unittest

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from gatehouse import EncryptedFileError, LicenseFileError, SignatureError, decrypt_bytes, decrypt_stream, signing, verify_license_file
from support import REPO_ROOT

SIGNING = json.loads((REPO_ROOT / "docs" / "signing-vectors.json").read_text("utf-8"))
FILES = json.loads((REPO_ROOT / "tests" / "crypto" / "vectors" / "file-encryption-v1.json").read_text("utf-8"))


class SigningVectors(unittest.TestCase):
    def test_every_response_case_reaches_its_verdict(self) -> None:
        keys = SIGNING["keys"]["response_signing"]
        self.assertGreater(len(SIGNING["response_cases"]), 20)
        for case in SIGNING["response_cases"]:
            with self.subTest(case["name"]):
                pinned = signing.pin([keys[name]["public_key_base64"] for name in case["pinned_keys"]])
                request, response = case["request"], case["response"]
                body = response["body"].encode("utf-8")
                verdict = "valid"
                try:
                    signing.verify_response(
                        pinned, SIGNING["application_id"], request["method"], request["path_and_query"], request["x_nonce"], request["x_signature"],
                        response["status"], response["headers"], body, case["download"],
                    )
                    if case["download"] and response["status"] == 200 and signing.hashlib.sha256(body).hexdigest() != response["headers"]["x-content-sha256"]:
                        verdict = "CONTENT_MISMATCH"  # what download_file raises at the end of the stream
                except SignatureError as error:
                    verdict = error.code
                self.assertEqual(verdict, "valid" if case["expected"]["valid"] else case["expected"]["failure"])

    def test_every_license_file_case_reaches_its_verdict(self) -> None:
        keys = SIGNING["keys"]["response_signing"]
        self.assertGreaterEqual(len(SIGNING["license_file_cases"]), 8)
        for case in SIGNING["license_file_cases"]:
            with self.subTest(case["name"]):
                pinned = [keys[name]["public_key_base64"] for name in case["pinned_keys"]]
                try:
                    claims = verify_license_file(case["license_file"], pinned, case["application_id"], case["hardware_id"], case["now"], case["newest_signed_time"])
                    verdict = "valid"
                    self.assertEqual(claims.username, "alice")
                    self.assertEqual(list(claims.entitlements), case["claims"]["entitlements"])
                    plan = case["claims"]["plan"]
                    self.assertEqual(None if claims.plan is None else {"id": claims.plan.id, "name": claims.plan.name}, plan)
                except LicenseFileError as error:
                    verdict = error.code
                self.assertEqual(verdict, "valid" if case["expected"]["valid"] else case["expected"]["failure"])

    def test_every_request_case_gets_the_expected_signature(self) -> None:
        key = signing.request_signing_key_bytes(SIGNING["keys"]["request_signing_key_base64"])
        for case in SIGNING["request_cases"]:
            with self.subTest(case["name"]):
                r = case["request"]
                headers = signing.sign_request(key, r["method"], r["path_and_query"], r["x_api_key"], r["credential_headers"], r["body"].encode("utf-8"), r["x_timestamp"], r["x_nonce"])
                if case["expected"]["valid"]:
                    self.assertEqual(headers["x-signature"], case["x_signature"])
                else:
                    self.assertNotEqual(headers["x-signature"], case["x_signature"])

    def test_key_ids_are_those_of_the_vectors(self) -> None:
        for name, key in SIGNING["keys"]["response_signing"].items():
            with self.subTest(name):
                self.assertEqual(signing.key_id(key["public_key_base64"]), key["key_id"])

    def test_malformed_keys_are_refused_when_pinned(self) -> None:
        for bad in ("not base64!", base64.b64encode(b"short").decode(), []):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                signing.pin(bad)
        with self.assertRaises(ValueError):
            signing.request_signing_key_bytes(base64.b64encode(b"x" * 31).decode())


def _vector(description_start: str) -> dict:
    return next(v for v in FILES["vectors"] if v["description"].startswith(description_start))


class FileEncryptionVectors(unittest.TestCase):
    def test_every_vector_decrypts_whole_and_byte_by_byte(self) -> None:
        self.assertGreater(len(FILES["vectors"]), 5)
        for v in FILES["vectors"]:
            with self.subTest(v["description"]):
                key, stored = bytes.fromhex(v["key"]), bytes.fromhex(v["ciphertext"])
                self.assertEqual(decrypt_bytes(key, stored), bytes.fromhex(v["plaintext"]))
                pieces = (stored[i : i + 1] for i in range(len(stored)))
                self.assertEqual(b"".join(decrypt_stream(key, pieces)), bytes.fromhex(v["plaintext"]))

    def assert_refused(self, key: bytes, stored: bytes, code: str) -> None:
        with self.assertRaises(EncryptedFileError) as caught:
            decrypt_bytes(key, stored)
        self.assertEqual(caught.exception.code, code)

    def test_tampering_truncation_extension_and_foreign_bytes_are_refused(self) -> None:
        v = _vector("three chunks (chunk size 16)")
        key, stored = bytes.fromhex(v["key"]), bytes.fromhex(v["ciphertext"])
        flipped = stored[:20] + bytes([stored[20] ^ 1]) + stored[21:]
        self.assert_refused(key, flipped, "AUTHENTICATION_FAILED")
        self.assert_refused(bytes(32), stored, "AUTHENTICATION_FAILED")
        self.assert_refused(key, stored[: 17 + 32 + 32], "TRUNCATED")  # cut at a chunk boundary
        self.assert_refused(key, stored[:-3], "AUTHENTICATION_FAILED")  # cut inside a chunk
        self.assert_refused(key, stored[:17], "TRUNCATED")
        self.assert_refused(key, stored[:10], "TRUNCATED")
        self.assert_refused(key, b"PK\x03\x04 a zip file", "NOT_ENCRYPTED_FILE")
        self.assert_refused(key, stored[:4] + b"\x02" + stored[5:], "UNSUPPORTED_VERSION")
        self.assert_refused(key, stored[:5] + struct.pack(">I", 0) + stored[9:], "INVALID_CHUNK_SIZE")
        full = _vector("three full chunks")
        key, stored = bytes.fromhex(full["key"]), bytes.fromhex(full["ciphertext"])
        self.assert_refused(key, stored + b"\x00" * 40, "TRAILING_DATA")

    def test_an_empty_final_chunk_after_others_is_malformed(self) -> None:
        key, prefix = bytes(range(32)), b"\x01" * 8
        header = b"GHFE\x01" + struct.pack(">I", 4) + prefix
        aead = AESGCM(key)
        chunk0 = aead.encrypt(prefix + struct.pack(">I", 0), b"abcd", header)
        empty_final = aead.encrypt(prefix + struct.pack(">I", 3), b"", header)
        self.assert_refused(key, header + chunk0 + empty_final, "MALFORMED")


if __name__ == "__main__":
    unittest.main()
