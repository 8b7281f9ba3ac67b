"""Against the real server (support.Server): sign-up of both kinds, login, logout, license
activation, the application context as dataclasses, remaining time from the signed server time,
automatic renewal of an ended session, and errors typed by error_code."""

from __future__ import annotations

import math
import time
import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from unittest import mock

import gatehouse
from support import App, Server, unique

server: Server
app: App


def setUpModule() -> None:
    global server, app
    server = Server()
    # Without ban propagation: a refused banned user would otherwise get the tests' one address banned.
    app = server.create_app(device_auth=True, default_allowed_devices=2, default_allowed_sessions=1, ban_propagation=False)
    server.console("PUT", f"/applications/{app.id}/variables/latest_version", {"value": "2.0.1", "is_public": True}, expect=200)


class Accounts(unittest.TestCase):
    def test_sign_up_activate_login_and_the_context(self) -> None:
        client = server.client(app, hardware_id="hw-alice")
        name = unique("alice")
        summary = client.sign_up(name, "alice-password-1")
        self.assertEqual(summary.username, name)
        self.assertEqual(summary.membership, gatehouse.Membership(False, False, None))
        with self.assertRaises(gatehouse.MembershipInactiveError) as caught:
            client.login(name, "alice-password-1")
        self.assertEqual((caught.exception.status, caught.exception.error_code), (403, "MEMBERSHIP_INACTIVE"))

        adjustment = client.activate_license(server.license(app, 600), name, "alice-password-1")
        self.assertIsInstance(adjustment, gatehouse.Adjustment)
        self.assertEqual((adjustment.type, adjustment.minutes, adjustment.grants_lifetime_access), ("license", 600, False))

        session = client.login(name, "alice-password-1")
        self.assertEqual(session.session_token, client.session_token)
        self.assertGreater(session.expires_at, datetime.now(timezone.utc))
        self.assertIsNone(client.remaining_time())  # no context read yet
        context = client.app_context()
        self.assertIsInstance(context, gatehouse.AppContext)
        self.assertEqual(context.application.id, app.id)
        self.assertEqual(context.application.variables, [gatehouse.Variable("latest_version", "2.0.1")])
        self.assertEqual(context.variable("latest_version"), "2.0.1")
        assert context.user is not None
        self.assertEqual((context.user.id, context.user.username), (summary.id, name))
        self.assertTrue(context.user.membership.is_active)
        assert context.user.membership.active_until is not None
        expected = (context.user.membership.active_until - context.server_time).total_seconds()
        left = client.remaining_time()
        assert left is not None
        self.assertLessEqual(left, expected)
        self.assertGreater(left, expected - 5)
        self.assertGreater(left, 599 * 60)

        # A second license with the credentials of the current login; then a lifetime one.
        self.assertEqual(client.activate_license(server.license(app, 60)).minutes, 60)
        self.assertTrue(client.activate_license(server.license(app, None)).grants_lifetime_access)
        client.app_context()
        self.assertEqual(client.remaining_time(), math.inf)
        client.logout()

    def test_sign_up_with_a_license_code_and_log_in_with_it(self) -> None:
        code = server.license(app, None)
        client = server.client(app, hardware_id="hw-coder")
        summary = client.sign_up_with_license(code)
        self.assertRegex(summary.username, r"^user-[0-9a-f]{16}$")
        self.assertTrue(summary.membership.is_lifetime)
        client.login(code=code)
        context = client.app_context()
        assert context.user is not None
        self.assertEqual(context.user.username, summary.username)
        with self.assertRaises(ValueError):
            client.activate_license(server.license(app))  # a code login has no password to activate with
        client.logout()

    def test_logout_ends_the_session_and_forgets_the_credentials(self) -> None:
        client, _ = server.member(app, unique("leaver"))
        client.logout()
        self.assertIsNone(client.session_token)
        with self.assertRaises(gatehouse.LoginRequiredError):
            client.app_context()  # nothing to renew with
        client.logout()  # a second logout is a no-op


class Renewal(unittest.TestCase):
    def test_a_revoked_session_is_renewed_by_logging_in_again(self) -> None:
        client, user_id = server.member(app, unique("renewer"))
        first = client.session_token
        server.console("DELETE", f"/applications/{app.id}/users/{user_id}/sessions", expect=204)
        context = client.app_context()  # SESSION_EXPIRED, then a new login and the retry
        assert context.user is not None
        self.assertEqual(context.user.id, user_id)
        self.assertNotEqual(client.session_token, first)
        client.logout()

    def test_threads_that_meet_an_ended_session_share_one_renewal(self) -> None:
        client, user_id = server.member(app, unique("threads"))
        first = client.session_token
        server.console("DELETE", f"/applications/{app.id}/users/{user_id}/sessions", expect=204)
        with ThreadPoolExecutor(max_workers=4) as pool:
            contexts = list(pool.map(lambda _: client.app_context(), range(4)))
        self.assertTrue(all(c.user is not None and c.user.id == user_id for c in contexts))
        self.assertNotEqual(client.session_token, first)
        # One session only (the application allows one): the others did not log in again over it.
        self.assertEqual(client.app_context().user.id, user_id)  # type: ignore[union-attr]
        client.logout()

    def test_a_timeout_raises_timed_out_error_with_until_and_reason(self) -> None:
        client, user_id = server.member(app, unique("cooler"))
        until = (datetime.now(timezone.utc) + timedelta(hours=2)).replace(microsecond=0)
        server.console("PUT", f"/applications/{app.id}/users/{user_id}/timeout", {"until": until.isoformat().replace("+00:00", "Z"), "reason": "cool down"}, expect=200)
        with self.assertRaises(gatehouse.TimedOutError) as caught:
            client.app_context()  # the session was revoked; the re-login is refused
        self.assertEqual(caught.exception.timed_out_until, until)
        self.assertEqual(caught.exception.reason, "cool down")
        self.assertEqual(caught.exception.status, 403)


class RemainingTime(unittest.TestCase):
    def test_counted_on_the_signed_server_time_not_the_device_clock(self) -> None:
        client, _ = server.member(app, unique("clock"), minutes=120)
        real_time = time.time
        # A device clock ten minutes ahead changes nothing: only the server's time and the monotonic clock count.
        with mock.patch("time.time", lambda: real_time() + 600):
            context = client.app_context()
            left = client.remaining_time()
        assert left is not None and context.user is not None and context.user.membership.active_until is not None
        expected = (context.user.membership.active_until - context.server_time).total_seconds()
        self.assertAlmostEqual(left, expected, delta=2)
        client.logout()

    def test_anonymous_context_has_no_user_and_no_remaining_time(self) -> None:
        anonymous_app = server.create_app(anonymous_access=True, device_auth=False)
        client = server.client(anonymous_app)
        context = client.app_context()
        self.assertIsNone(context.user)
        self.assertIsNone(client.remaining_time())


class TypedErrors(unittest.TestCase):
    def test_refusals_raise_their_classes(self) -> None:
        name = unique("typed")
        client = server.client(app, hardware_id="hw-typed")
        client.sign_up(name, "typed-password-1")
        with self.assertRaises(gatehouse.UsernameTakenError):
            client.sign_up(name, "typed-password-1")
        with self.assertRaises(gatehouse.ValidationError) as caught:
            client.sign_up(unique("short"), "short")
        self.assertEqual(caught.exception.status, 422)
        with self.assertRaises(gatehouse.InvalidCredentialsError):
            client.login(name, "wrong-password-1")
        with self.assertRaises(gatehouse.LicenseInvalidError):
            client.sign_up_with_license("NOT-A-REAL-CODE")
        with self.assertRaises(gatehouse.DeviceRequiredError):
            server.client(app).sign_up(unique("nodevice"), "typed-password-1")

    def test_a_banned_user(self) -> None:
        own_app = server.create_app(ban_propagation=False)
        client, user_id = server.member(own_app, unique("banned"))
        server.console("POST", f"/applications/{own_app.id}/bans", {"type": "user", "value": user_id, "reason": "cheating"}, expect=201)
        with self.assertRaises(gatehouse.BannedError) as caught:
            client.app_context()
        self.assertEqual((caught.exception.status, caught.exception.error_code), (403, "BANNED"))

    def test_wrong_api_credentials_and_an_unknown_file(self) -> None:
        # A wrong key is answered before the application is known, unsigned: only an unpinned client reads it.
        wrong = gatehouse.GatehouseClient(server.base, app.api_key, "wrong-secret")
        with self.assertRaises(gatehouse.InvalidApiCredentialsError):
            wrong.app_context()
        pinned_wrong = gatehouse.GatehouseClient(server.base, app.api_key, "wrong-secret", response_signing_public_keys=app.public_key, application_id=app.id)
        with self.assertRaises(gatehouse.SignatureError) as caught:
            pinned_wrong.app_context()
        self.assertEqual(caught.exception.code, "SIGNATURE_MISSING")
        client, _ = server.member(app, unique("finder"))
        with self.assertRaises(gatehouse.NotFoundError) as missing:
            client.download_file(str(uuid.uuid4()), "never-written")
        self.assertEqual(missing.exception.error_code, "FILE_NOT_FOUND")
        client.logout()


if __name__ == "__main__":
    unittest.main()
