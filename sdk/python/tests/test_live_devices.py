"""The user's own devices (docs/machines.md, Devices) against the real server: the device
sent on sign-up and login, devices() and drop_device()."""

from __future__ import annotations

import unittest

import gatehouse
from support import Server, raw_request, unique

server: Server


def setUpModule() -> None:
    global server
    server = Server()


class Devices(unittest.TestCase):
    def test_named_listed_and_dropped(self) -> None:
        app = server.create_app(device_auth=True, default_allowed_devices=2, default_allowed_sessions=2, device_reset_cooldown_hours=24)
        name = unique("dora")
        laptop = server.client(app, hardware_id="hw-laptop", device={"name": "Laptop", "platform": "linux"})
        laptop.sign_up(name, "member-password-1")
        laptop.activate_license(server.license(app, None), name, "member-password-1")
        laptop.login(name, "member-password-1", device={"app_version": "2.0.0"})
        desk = server.client(app, hardware_id="hw-desk", device={"name": "Desk"})
        desk.login(name, "member-password-1")

        seen = laptop.devices()
        self.assertEqual([(d.name, d.platform, d.app_version, d.current) for d in seen], [("Laptop", "linux", "2.0.0", True), ("Desk", None, None, False)])
        self.assertIsInstance(seen[0], gatehouse.Device)
        desk_token = desk.session_token
        laptop.drop_device(seen[1].id)
        self.assertEqual([d.name for d in laptop.devices()], ["Laptop"])
        # The desk's token is over at once.
        headers = {"x-api-key": app.api_key, "x-api-secret": app.api_secret, "authorization": f"Bearer {desk_token}"}
        status, _, _ = raw_request(server.base, "GET", "/api/integration/devices", headers)
        self.assertEqual(status, 401)
        with self.assertRaises(gatehouse.ResetCooldownError):
            laptop.drop_device(seen[0].id)
        with self.assertRaises(gatehouse.NotFoundError) as missing:
            laptop.drop_device("6f1c0a52-3d8e-4c1b-9a57-0d2f3e4b5c6d")
        self.assertEqual(missing.exception.error_code, "DEVICE_NOT_FOUND")
        with self.assertRaises(gatehouse.ValidationError):
            server.client(app, hardware_id="hw-x", device={"name": "bad\u0000"}).login(name, "member-password-1")
