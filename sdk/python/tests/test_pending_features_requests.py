"""The requests of the end-user methods (per-user variables, change_password, reset_devices, start_trial)
and request_license_file, as sent, against a signed stand-in (support.SignedFake): paths and
fields byte by byte. test_live_end_user_features.py runs the same methods against the real
server."""

from __future__ import annotations

import unittest
from datetime import datetime, timezone

import gatehouse
from support import SignedFake

SESSION = {"session_token": "gh_st_one", "expires_at": "2030-01-01T00:00:00.000Z"}
SECOND = {"session_token": "gh_st_two", "expires_at": "2030-01-01T00:00:00.000Z"}


class PendingFeatureRequests(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = SignedFake()
        self.addCleanup(self.fake.close)
        self.client = self.fake.client(hardware_id="hw-1")

    def login(self, **credentials: str) -> None:
        self.fake.answer(200, SESSION)
        self.client.login(**credentials)

    def test_user_variables(self) -> None:
        self.login(username="alice", password="alice-password-1")
        self.fake.answer(200, [{"name": "level", "value": "3", "updated_at": "2026-06-08T12:00:00.000Z"}])
        self.fake.answer(200, {"name": "level", "value": "3", "updated_at": "2026-06-08T12:00:00.000Z"})
        self.fake.answer(200, {"name": "theme", "value": "dark", "updated_at": "2026-06-08T12:00:01.000Z"})
        self.fake.answer(204)
        listed = self.client.user_variables()
        one = self.client.get_user_variable("level")
        stored = self.client.set_user_variable("theme", "dark")
        self.client.delete_user_variable("theme")
        self.assertEqual(listed, [gatehouse.UserVariable("level", "3", datetime(2026, 6, 8, 12, tzinfo=timezone.utc))])
        self.assertEqual(one.value, "3")
        self.assertEqual(stored, gatehouse.UserVariable("theme", "dark", datetime(2026, 6, 8, 12, 0, 1, tzinfo=timezone.utc)))
        calls = [(r["method"], r["path"], r["body"], r["headers"].get("authorization")) for r in self.fake.requests[1:]]
        self.assertEqual(calls, [
            ("GET", "/api/integration/user_variables", None, "Bearer gh_st_one"),
            ("GET", "/api/integration/user_variables/level", None, "Bearer gh_st_one"),
            ("PUT", "/api/integration/user_variables/theme", {"value": "dark"}, "Bearer gh_st_one"),
            ("DELETE", "/api/integration/user_variables/theme", None, "Bearer gh_st_one"),
        ])

    def test_a_missing_variable_and_a_name_that_needs_escaping(self) -> None:
        self.login(username="alice", password="alice-password-1")
        self.fake.answer(404, {"error_code": "VARIABLE_NOT_FOUND", "message": "no such variable"})
        with self.assertRaises(gatehouse.NotFoundError) as caught:
            self.client.get_user_variable("a/b?c")
        self.assertEqual(caught.exception.error_code, "VARIABLE_NOT_FOUND")
        self.assertEqual(self.fake.requests[-1]["path"], "/api/integration/user_variables/a%2Fb%3Fc")

    def test_user_variables_renew_an_expired_session(self) -> None:
        self.login(username="alice", password="alice-password-1")
        self.fake.answer(401, {"error_code": "SESSION_EXPIRED", "message": "expired"})
        self.fake.answer(200, SECOND)
        self.fake.answer(200, {"name": "theme", "value": "dark", "updated_at": "2026-06-08T12:00:00.000Z"})
        self.client.set_user_variable("theme", "dark")
        self.assertEqual([r["path"] for r in self.fake.requests[1:]], ["/api/integration/user_variables/theme", "/api/integration/auth/login", "/api/integration/user_variables/theme"])
        self.assertEqual(self.fake.requests[-1]["headers"]["authorization"], "Bearer gh_st_two")

    def test_change_password_sends_the_spec_fields_and_logs_in_with_the_new_one(self) -> None:
        self.login(username="alice", password="alice-password-1")
        self.fake.answer(204)
        self.client.change_password("alice-password-2")
        self.assertEqual(self.fake.requests[-1]["path"], "/api/integration/change_password")
        self.assertEqual(self.fake.requests[-1]["body"], {"username": "alice", "password": "alice-password-1", "new_password": "alice-password-2"})
        self.assertIsNone(self.client.session_token)  # the server revoked every session
        self.fake.answer(200, SECOND)
        self.fake.answer(200, [])
        self.client.user_variables()
        self.assertEqual(self.fake.requests[-2]["body"]["credentials"], {"username": "alice", "password": "alice-password-2"})

    def test_change_password_of_a_license_user(self) -> None:
        self.fake.answer(422, {"error_code": "NOT_A_PASSWORD_USER", "message": "license-code users have no password"})
        with self.assertRaises(gatehouse.NotAPasswordUserError):
            self.client.change_password("new-password-1", "user-0123456789abcdef", "whatever")
        with self.assertRaises(ValueError):
            self.client.change_password("new-password-1")  # no credentials given or kept

    def test_reset_devices_with_a_password_or_a_code_never_a_token(self) -> None:
        self.fake.answer(200, {"next_reset_at": "2026-06-09T12:00:00.000Z"})
        reset = self.client.reset_devices("alice", "alice-password-1")
        self.assertEqual(reset.next_reset_at, datetime(2026, 6, 9, 12, tzinfo=timezone.utc))
        self.login(code="ABCD-EFGH")
        self.fake.answer(200, {"next_reset_at": None})
        self.assertIsNone(self.client.reset_devices().next_reset_at)
        first, last = self.fake.requests[0], self.fake.requests[-1]
        self.assertEqual((first["method"], first["path"], first["body"]), ("POST", "/api/integration/reset_devices", {"username": "alice", "password": "alice-password-1"}))
        self.assertEqual((last["path"], last["body"]), ("/api/integration/reset_devices", {"code": "ABCD-EFGH"}))
        self.assertNotIn("authorization", last["headers"])
        self.assertIsNone(self.client.session_token)

    def test_reset_devices_cooldown_and_disabled(self) -> None:
        self.fake.answer(429, {"error_code": "RESET_COOLDOWN", "message": "not yet", "next_reset_at": "2026-06-09T12:00:00.000Z"}, {"retry-after": "3600"})
        with self.assertRaises(gatehouse.ResetCooldownError) as caught:
            self.client.reset_devices(code="ABCD-EFGH")
        self.assertEqual(caught.exception.next_reset_at, datetime(2026, 6, 9, 12, tzinfo=timezone.utc))
        self.assertEqual(caught.exception.retry_after_seconds, 3600)
        self.fake.answer(403, {"error_code": "RESET_DISABLED", "message": "off"})
        with self.assertRaises(gatehouse.ResetDisabledError):
            self.client.reset_devices(code="ABCD-EFGH")

    def test_start_trial_with_full_credentials_and_the_machine(self) -> None:
        membership = {"is_active": True, "is_lifetime": False, "active_until": "2026-06-22T12:00:00.000Z"}
        self.fake.answer(200, {"id": "u-1", "username": "alice", "membership": membership})
        started = self.client.start_trial("hw-7", "alice", "alice-password-1")
        self.assertEqual((started.username, started.membership.is_active), ("alice", True))
        last = self.fake.requests[-1]
        self.assertEqual((last["method"], last["path"]), ("POST", "/api/integration/start_trial"))
        self.assertEqual(last["body"], {"credentials": {"username": "alice", "password": "alice-password-1"}, "hardware_id": "hw-7"})
        self.assertNotIn("authorization", last["headers"])
        with self.assertRaises(ValueError):
            self.client.start_trial("hw-7")  # no credentials given or kept
        for status, code in ((409, "TRIAL_USED"), (409, "TRIAL_NOT_ELIGIBLE"), (404, "TRIAL_NOT_OFFERED")):
            self.fake.answer(status, {"error_code": code, "message": "refused"})
            with self.assertRaises(gatehouse.TrialRefusedError) as caught:
                self.client.start_trial("hw-7", code="ABCD-EFGH")
            self.assertEqual((caught.exception.status, caught.exception.error_code), (status, code))
        self.assertEqual(self.fake.requests[-1]["body"], {"credentials": {"code": "ABCD-EFGH"}, "hardware_id": "hw-7"})

    def test_request_license_file(self) -> None:
        self.login(username="alice", password="alice-password-1")
        self.fake.answer(200, {"license_file": "-----BEGIN GATEHOUSE LICENSE FILE-----\nx\n-----END GATEHOUSE LICENSE FILE-----", "expires_at": "2026-06-22T12:00:00.000Z"})
        issued = self.client.request_license_file()
        self.assertTrue(issued.license_file.startswith("-----BEGIN GATEHOUSE LICENSE FILE-----"))
        self.assertEqual(issued.expires_at, datetime(2026, 6, 22, 12, tzinfo=timezone.utc))
        last = self.fake.requests[-1]
        self.assertEqual((last["method"], last["path"], last["body"], last["headers"]["authorization"]), ("POST", "/api/integration/license_file", {"hardware_id": "hw-1"}, "Bearer gh_st_one"))

    def test_answers_of_the_stand_in_are_verified_too(self) -> None:
        # A client pinning another key refuses the stand-in's answers: the pinning is in force here.
        other = SignedFake()
        self.addCleanup(other.close)
        client = gatehouse.GatehouseClient(self.fake.base, "k", "s", response_signing_public_keys=other.public_key, application_id=SignedFake.application_id)
        self.fake.answer(200, {"next_reset_at": None})
        with self.assertRaises(gatehouse.SignatureError):
            client.reset_devices(code="ABCD-EFGH")


if __name__ == "__main__":
    unittest.main()
