"""Heartbeats (docs/sdk.md, Heartbeats; issue 43): start_heartbeat() keeps a session alive past
two intervals, a killed client's seat frees itself, logout stops the thread. Against the
in-process server on a clock the test moves (GATEHOUSE_CLOCKED_URL, GATEHOUSE_CLOCK_URL, set by
tests/python-sdk/python-sdk.test.ts): the beats run on a short real interval, and the test waits
for the beat it means to see after each move of the server's clock, never for a time."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import unittest
from datetime import datetime, timedelta
from typing import List

import gatehouse
from gatehouse._time import parse_timestamp
from support import App, Server, raw_request, unique

INTERVAL_S = 30
LEASE = timedelta(seconds=2 * INTERVAL_S)
#: How long to wait for a state the test means to hit before calling it a failure.
PATIENCE_S = 30.0

server: Server
app: App


class ClockedServer(Server):
    """The in-process server whose clock the test moves."""

    def __init__(self) -> None:
        super().__init__()
        self.base = os.environ["GATEHOUSE_CLOCKED_URL"].rstrip("/")
        self.console_token = os.environ["GATEHOUSE_CLOCKED_CONSOLE_TOKEN"]
        self.clock_url = os.environ["GATEHOUSE_CLOCK_URL"].rstrip("/")

    def advance(self, seconds: float) -> datetime:
        """Moves the server's clock on; its time now."""
        status, _, raw = raw_request(self.clock_url, "POST", f"/advance?ms={int(seconds * 1000)}", {})
        if status != 200:
            raise AssertionError(f"advance: {status} {raw!r}")
        return parse_timestamp(raw.decode())


def setUpModule() -> None:
    global server, app
    if not os.environ.get("GATEHOUSE_CLOCK_URL"):
        raise unittest.SkipTest("no server with a test clock: tests/python-sdk/python-sdk.test.ts starts one")
    server = ClockedServer()
    app = server.create_app(heartbeat_seconds=INTERVAL_S, session_ttl_seconds=3600, device_auth=True, default_allowed_devices=2, default_allowed_sessions=1, ban_propagation=False)


class Beats:
    """The leases a heartbeat thread reports, and a wait for one renewed at or after a moment."""

    def __init__(self) -> None:
        self.leases: List[gatehouse.Lease] = []
        self.lost: List[gatehouse.GatehouseError] = []
        self._changed = threading.Condition()

    def on_beat(self, lease: gatehouse.Lease) -> None:
        with self._changed:
            self.leases.append(lease)
            self._changed.notify_all()

    def on_lease_lost(self, error: gatehouse.GatehouseError) -> None:
        with self._changed:
            self.lost.append(error)
            self._changed.notify_all()

    def wait_for_loss(self) -> gatehouse.GatehouseError:
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.lost) > 0, PATIENCE_S):
                raise AssertionError("the lost lease was not reported")
            return self.lost[0]

    def wait_for_beat_at(self, moment: datetime) -> gatehouse.Lease:
        with self._changed:
            if not self._changed.wait_for(lambda: any(lease.server_time >= moment for lease in self.leases), PATIENCE_S):
                raise AssertionError(f"no beat at or after {moment}")
            return next(lease for lease in self.leases if lease.server_time >= moment)


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
