"""The end-user features (user variables, change_password, reset_devices) and license files
against the real server."""

from __future__ import annotations

import unittest

import gatehouse
from support import Server, unique

server: Server


def setUpModule() -> None:
    global server
    server = Server()


class UserVariables(unittest.TestCase):
    def test_set_get_list_delete_and_only_ones_own(self) -> None:
        app = server.create_app(device_auth=False)
        alice, _ = server.member(app, unique("alice"))
        bob, _ = server.member(app, unique("bob"))
        alice.set_user_variable("level", "3")
        alice.set_user_variable("theme", "dark")
        self.assertEqual(alice.get_user_variable("level").value, "3")
        self.assertEqual(sorted(v.name for v in alice.user_variables()), ["level", "theme"])
        self.assertEqual(bob.user_variables(), [])
        with self.assertRaises(gatehouse.NotFoundError) as missing:
            bob.get_user_variable("level")
        self.assertEqual(missing.exception.error_code, "VARIABLE_NOT_FOUND")
        alice.delete_user_variable("theme")
        self.assertEqual([v.name for v in alice.user_variables()], ["level"])
        with self.assertRaises(gatehouse.ValidationError):
            alice.set_user_variable("bad name!", "x")


class Entitlements(unittest.TestCase):
    def test_direct_grants_reach_login_app_context_activation_and_license_files(self) -> None:
        app = server.create_app(device_auth=False, default_allowed_sessions=10)
        name = unique("granted")
        client, user_id = server.member(app, name)
        self.assertEqual(client.entitlements, ())
        server.console("PUT", f"/applications/{app.id}/users/{user_id}/entitlements", {"entitlements": ["export", "beta"]}, expect=200)
        session = client.login(name, "member-password-1")
        self.assertEqual(session.membership.entitlements, ("beta", "export"))
        self.assertIsNone(session.membership.plan)
        self.assertEqual(client.entitlements, ("beta", "export"))
        self.assertTrue(client.has_entitlement("export"))
        self.assertFalse(client.has_entitlement("dlc"))
        server.console("PUT", f"/applications/{app.id}/users/{user_id}/entitlements", {"entitlements": ["dlc"]}, expect=200)
        context = client.app_context()
        self.assertEqual(context.user.membership.entitlements, ("dlc",))
        self.assertFalse(context.user.membership.in_grace)
        self.assertTrue(client.has_entitlement("dlc"))
        activation = client.activate_license(server.license(app))
        self.assertEqual(activation.membership.entitlements, ("dlc",))
        issued = client.request_license_file()
        self.assertEqual(client.verify_license_file(issued.license_file).entitlements, ("dlc",))
        client.logout()
        self.assertEqual(client.entitlements, ())


class ChangePassword(unittest.TestCase):
    def test_the_new_password_works_the_old_one_does_not(self) -> None:
        app = server.create_app(device_auth=False)
        name = unique("changer")
        client, _ = server.member(app, name)
        client.change_password("member-password-2")
        self.assertIsNotNone(client.app_context().user)  # logged in again with the new password
        with self.assertRaises(gatehouse.InvalidCredentialsError):
            server.client(app).login(name, "member-password-1")
        code = server.license(app)
        coder = server.client(app)
        user = coder.sign_up_with_license(code)
        with self.assertRaises(gatehouse.NotAPasswordUserError):
            coder.change_password("new-password-1", user.username, code)


class ResetDevices(unittest.TestCase):
    def test_reset_then_cooldown_and_disabled(self) -> None:
        app = server.create_app(device_auth=True, default_allowed_devices=1)
        server.console("PATCH", f"/applications/{app.id}", {"device_reset_cooldown_hours": 24}, expect=200)
        name = unique("mover")
        old_machine, _ = server.member(app, name, hardware_id="old-machine")
        with self.assertRaises(gatehouse.DeviceLimitReachedError):
            server.client(app, hardware_id="new-machine").login(name, "member-password-1")
        reset = old_machine.reset_devices()
        self.assertIsNotNone(reset.next_reset_at)
        server.client(app, hardware_id="new-machine").login(name, "member-password-1")
        with self.assertRaises(gatehouse.ResetCooldownError) as cooldown:
            old_machine.reset_devices(name, "member-password-1")
        self.assertEqual(cooldown.exception.next_reset_at, reset.next_reset_at)
        off = server.create_app(device_auth=True)
        user, _ = server.member(off, unique("stuck"))
        with self.assertRaises(gatehouse.ResetDisabledError):
            user.reset_devices()


class LicenseFiles(unittest.TestCase):
    def test_a_license_file_from_the_server_verifies_offline_here_only(self) -> None:
        app = server.create_app(device_auth=True)
        name = unique("offline")
        client, user_id = server.member(app, name, hardware_id="machine-1")
        issued = client.request_license_file()
        claims = client.verify_license_file(issued.license_file)
        self.assertEqual((claims.app, claims.sub, claims.username), (app.id, user_id, name))
        self.assertAlmostEqual(claims.exp.timestamp(), issued.expires_at.timestamp(), delta=1)
        with self.assertRaises(gatehouse.LicenseFileError) as elsewhere:
            gatehouse.verify_license_file(issued.license_file, app.public_key, app.id, "machine-2")
        self.assertEqual(elsewhere.exception.code, "OTHER_MACHINE")


if __name__ == "__main__":
    unittest.main()
