"""Heartbeats (docs/sdk.md, Heartbeats; issue 43): start_heartbeat() keeps a session alive past
two intervals, a killed client's seat frees itself, logout stops the thread. Against the
in-process server on a clock the test moves (GATEHOUSE_CLOCKED_URL, GATEHOUSE_CLOCK_URL, set by
tests/python-sdk/python-sdk.test.ts): the beats run on a short real interval, and the test waits
for the beat it means to see after each move of the server's clock, never for a time."""

from __future__ import annotations

import os
import subprocess
import sys
import unittest
from datetime import timedelta

import gatehouse
from support import App, Beats, ClockedServer, unique

INTERVAL_S = 30
LEASE = timedelta(seconds=2 * INTERVAL_S)
server: ClockedServer
app: App


def setUpModule() -> None:
    global server, app
    server = ClockedServer()
    app = server.create_app(heartbeat_seconds=INTERVAL_S, session_ttl_seconds=3600, device_auth=True, default_allowed_devices=2, default_allowed_sessions=1, ban_propagation=False)


def member(name: str, hardware_id: str) -> gatehouse.GatehouseClient:
    client = server.client(app, pinned=False, hardware_id=hardware_id)
    client.sign_up(name, "member-password-1")
    client.activate_license(server.license(app, 600), name, "member-password-1")
    return client


class Heartbeat(unittest.TestCase):
    def test_the_heartbeat_keeps_the_session_past_two_intervals_and_its_seat_held(self) -> None:
        name = unique("beater")
        client = member(name, "hw-1")
        client.login(name, "member-password-1")
        token = client.session_token
        beats = Beats()
        first = client.start_heartbeat(beats.on_lease_lost, on_beat=beats.on_beat, interval=0.02)
        self.addCleanup(client.logout)
        self.assertEqual(first.lease_expires_at - first.server_time, LEASE)
        for _ in range(5):
            now = server.advance(INTERVAL_S)
            lease = beats.wait_for_beat_at(now)
            self.assertEqual(lease.lease_expires_at - lease.server_time, LEASE)
        # Five intervals on: the same session answers, and holds the only seat.
        context = client.app_context()
        assert context.user is not None
        self.assertEqual(client.session_token, token)
        self.assertEqual(beats.lost, [])
        other = server.client(app, pinned=False, hardware_id="hw-2")
        with self.assertRaises(gatehouse.SessionLimitReachedError):
            other.login(name, "member-password-1")

    def test_a_killed_clients_seat_frees_itself(self) -> None:
        name = unique("crasher")
        member(name, "hw-1")
        # A client in a process of its own, heartbeating, killed without a logout.
        script = (
            "import sys, gatehouse\n"
            "c = gatehouse.GatehouseClient(sys.argv[1], sys.argv[2], sys.argv[3], hardware_id='hw-1')\n"
            "c.login(sys.argv[4], 'member-password-1')\n"
            "c.start_heartbeat(interval=0.02)\n"
            "print('beating', flush=True)\n"
            "sys.stdin.read()\n"
        )
        child = subprocess.Popen([sys.executable, "-c", script, server.base, app.api_key, app.api_secret, name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=os.environ.copy())
        self.addCleanup(lambda: (child.poll() is None and child.kill(), child.wait(), child.stdin and child.stdin.close(), child.stdout and child.stdout.close()))
        assert child.stdout is not None
        self.assertEqual(child.stdout.readline().strip(), b"beating")
        second = server.client(app, pinned=False, hardware_id="hw-2")
        with self.assertRaises(gatehouse.SessionLimitReachedError):
            second.login(name, "member-password-1")
        child.kill()
        child.wait()
        # Nobody beats for the dead client: two intervals on, its seat is free.
        server.advance(LEASE.total_seconds())
        second.login(name, "member-password-1")
        context = second.app_context()
        assert context.user is not None
        self.assertEqual(context.user.username, name)
        second.logout()

    def test_a_lapsed_lease_is_reported_once_and_stops_the_thread(self) -> None:
        name = unique("sleeper")
        client = member(name, "hw-1")
        client.login(name, "member-password-1")
        beats = Beats()
        # Every beat before the move is at the same server time: the move passes each one's lease.
        client.start_heartbeat(beats.on_lease_lost, on_beat=beats.on_beat, interval=0.02)
        self.addCleanup(client.logout)
        server.advance(LEASE.total_seconds())
        self.assertIsInstance(beats.wait_for_loss(), gatehouse.SessionExpiredError)
        self.assertFalse(client.heartbeating)
        self.assertEqual(len(beats.lost), 1)

    def test_logout_stops_the_heartbeat(self) -> None:
        name = unique("leaver")
        client = member(name, "hw-1")
        client.login(name, "member-password-1")
        client.start_heartbeat(interval=0.02)
        self.assertTrue(client.heartbeating)
        client.logout()
        self.assertFalse(client.heartbeating)
        with self.assertRaises(gatehouse.LoginRequiredError):
            client.heartbeat()


if __name__ == "__main__":
    unittest.main()
