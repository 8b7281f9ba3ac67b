"""Against the real server (support.Server), issue 43's refresh tokens: login with remember keeps
only the refresh token, in a file of mode 0600; a client started again with only that file
resumes; an ended session is renewed by a refresh; a refused token is forgotten."""

from __future__ import annotations

import json
import stat
import unittest

import gatehouse
from support import App, Server, raw_request, temp_dir, unique

PASSWORD = "remembered-password-1"
server: Server
app: App


def setUpModule() -> None:
    global server, app
    server = Server()
    app = server.create_app(device_auth=True, default_allowed_devices=1, default_allowed_sessions=1, ban_propagation=False)


def refresh_raw(token: str, hardware_id: str) -> str:
    """The error_code the server answers a raw refresh with (or 'OK')."""
    headers = {"x-api-key": app.api_key, "x-api-secret": app.api_secret, "content-type": "application/json"}
    status, _, body = raw_request(server.base, "POST", "/api/integration/auth/refresh", headers, json.dumps({"refresh_token": token, "hardware_id": hardware_id}))
    return "OK" if status == 200 else json.loads(body)["error_code"]


class RefreshTokens(unittest.TestCase):
    def member(self, hardware_id: str) -> str:
        name = unique("kept")
        client = server.client(app, hardware_id=hardware_id)
        client.sign_up(name, PASSWORD)
        client.activate_license(server.license(app, None), name, PASSWORD)
        return name

    def test_survives_a_restart_with_only_its_0600_file_that_never_holds_the_password(self) -> None:
        name = self.member("hw-py-a")
        path = temp_dir(self) / "token"
        first = server.client(app, hardware_id="hw-py-a", refresh_token_store=str(path))
        session = first.login(name, PASSWORD, remember=True)
        self.assertEqual(stat.S_IMODE(path.stat().st_mode), 0o600)
        kept = path.read_text(encoding="utf-8")
        self.assertEqual(kept.strip(), session.refresh_token)
        self.assertNotIn(PASSWORD, kept)
        self.assertNotIn(name, kept)

        # A new process: the file and nothing else.
        restarted = server.client(app, hardware_id="hw-py-a", refresh_token_store=path)
        context = restarted.app_context()
        assert context.user is not None
        self.assertEqual(context.user.username, name)
        self.assertNotEqual(path.read_text(encoding="utf-8").strip(), session.refresh_token)
        self.assertEqual(stat.S_IMODE(path.stat().st_mode), 0o600)
        self.assertNotIn(PASSWORD, path.read_text(encoding="utf-8"))

    def test_an_ended_session_is_renewed_by_a_refresh_and_resume_opens_one(self) -> None:
        name = self.member("hw-py-b")
        path = temp_dir(self) / "token"
        client = server.client(app, hardware_id="hw-py-b", refresh_token_store=path)
        client.login(name, PASSWORD, remember=True)
        before = client.session_token
        # Another login on the same machine replaces the session: SESSION_EXPIRED for the client.
        server.client(app, hardware_id="hw-py-b").login(name, PASSWORD)
        context = client.app_context()
        assert context.user is not None
        self.assertEqual(context.user.username, name)
        self.assertNotEqual(client.session_token, before)
        resumed = server.client(app, hardware_id="hw-py-b", refresh_token_store=path).resume()
        assert resumed is not None and resumed.membership is not None
        self.assertTrue(resumed.membership.is_active)
        self.assertIsNone(server.client(app, hardware_id="hw-py-b", refresh_token_store=temp_dir(self) / "none").resume())

    def test_a_reused_token_is_refused_and_forgotten_and_logout_ends_the_family(self) -> None:
        name = self.member("hw-py-c")
        path = temp_dir(self) / "token"
        client = server.client(app, hardware_id="hw-py-c", refresh_token_store=path)
        session = client.login(name, PASSWORD, remember=True)
        client.resume()
        assert session.refresh_token is not None
        self.assertEqual(refresh_raw(session.refresh_token, "hw-py-c"), "REFRESH_REUSED")
        with self.assertRaises(gatehouse.RefreshRefusedError):
            server.client(app, hardware_id="hw-py-c", refresh_token_store=path).resume()
        self.assertFalse(path.exists())

        client.login(name, PASSWORD, remember=True)
        kept = path.read_text(encoding="utf-8").strip()
        client.logout()
        self.assertFalse(path.exists())
        self.assertEqual(refresh_raw(kept, "hw-py-c"), "REFRESH_INVALID")


if __name__ == "__main__":
    unittest.main()
