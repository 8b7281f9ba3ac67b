"""Floating seats with heartbeats (docs/machines.md, Floating seats; issue 43): start_heartbeat()
keeps a floating seat past two intervals while another holder of the code is refused
SEATS_EXHAUSTED, and a killed client's seat frees itself two intervals after its last beat.
Against the in-process server on a clock the test moves, as test_live_heartbeat.py: after each
move the test waits for the beat it means to see, never for a time."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import unittest
from datetime import datetime, timedelta
from typing import Optional, Tuple

import gatehouse
from support import PATIENCE_S, App, Beats, ClockedServer, unique

INTERVAL_S = 30
LEASE = timedelta(seconds=2 * INTERVAL_S)
server: ClockedServer
app: App
plan_id: str


def setUpModule() -> None:
    global server, app, plan_id
    server = ClockedServer()
    app = server.create_app(heartbeat_seconds=INTERVAL_S, session_ttl_seconds=3600, device_auth=True, default_allowed_devices=2)
    plan = server.console("POST", f"/applications/{app.id}/plans", {"name": "Floating 1", "kind": "base", "duration_minutes": 600, "seats": 1, "floating": True}, expect=201)
    plan_id = plan["id"]


def shared_seat() -> Tuple[str, str, str]:
    """A one-seat floating license's code, and the machines of two holders who signed up with it."""
    created = server.console("POST", f"/applications/{app.id}/licenses", {"count": 1, "plan_id": plan_id}, expect=201)
    code: str = created["licenses"][0]["code"]
    a, b = unique("hw-a"), unique("hw-b")
    for machine in (a, b):
        server.client(app, pinned=False, hardware_id=machine).sign_up_with_license(code)
    return code, a, b


def lines_of(child: "subprocess.Popen[bytes]") -> "queue.Queue[str]":
    """The lines a child process prints, read on a thread of their own, so that a wait for one
    gives up after PATIENCE_S instead of hanging; an empty line once it ends."""
    said: "queue.Queue[str]" = queue.Queue()

    def read() -> None:
        assert child.stdout is not None
        for raw in iter(child.stdout.readline, b""):
            said.put(raw.decode().strip())
        said.put("")

    threading.Thread(target=read, daemon=True).start()
    return said


class FloatingSeat(unittest.TestCase):
    def assert_seat_taken(self, client: gatehouse.GatehouseClient, code: str) -> None:
        """The login by the code is refused for the seats, with a Retry-After within the lease."""
        with self.assertRaises(gatehouse.SeatsExhaustedError) as refused:
            client.login(code=code)
        self.assertEqual((refused.exception.status, refused.exception.error_code), (403, "SEATS_EXHAUSTED"))
        retry: Optional[int] = refused.exception.retry_after_seconds
        assert retry is not None
        self.assertTrue(1 <= retry <= LEASE.total_seconds(), retry)

    def test_the_heartbeat_keeps_a_floating_seat(self) -> None:
        code, a, b = shared_seat()
        first = server.client(app, pinned=False, hardware_id=a)
        second = server.client(app, pinned=False, hardware_id=b)
        first.login(code=code)
        beats = Beats()
        lease = first.start_heartbeat(beats.on_lease_lost, on_beat=beats.on_beat, interval=0.02)
        self.addCleanup(first.logout)
        self.assertEqual(lease.lease_expires_at - lease.server_time, LEASE)
        self.assert_seat_taken(second, code)
        start = lease.server_time
        # Eight intervals: past two intervals four times over, the seat renewed each interval.
        for _ in range(8):
            now = server.advance(INTERVAL_S)
            beats.wait_for_beat_at(now)
            self.assert_seat_taken(second, code)
        self.assertGreaterEqual(now - start, 4 * LEASE)
        self.assertEqual(beats.lost, [])
        self.assertTrue(first.heartbeating)
        # Handing the seat back: the other holder gets it at once.
        first.logout()
        second.login(code=code)
        second.logout()

    def test_a_killed_clients_floating_seat_frees_itself(self) -> None:
        code, a, b = shared_seat()
        # A client in a process of its own, heartbeating, killed without a logout; it prints each
        # new server time its beats are answered at.
        script = (
            "import sys, gatehouse\n"
            "c = gatehouse.GatehouseClient(sys.argv[1], sys.argv[2], sys.argv[3], hardware_id=sys.argv[5])\n"
            "c.login(code=sys.argv[4])\n"
            "seen = []\n"
            "def beat(lease):\n"
            "    if lease.server_time not in seen:\n"
            "        seen.append(lease.server_time)\n"
            "        print('beat', lease.server_time.isoformat(), flush=True)\n"
            "c.start_heartbeat(on_beat=beat, interval=0.02)\n"
            "print('beating', flush=True)\n"
            "sys.stdin.read()\n"
        )
        child = subprocess.Popen([sys.executable, "-c", script, server.base, app.api_key, app.api_secret, code, a], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=os.environ.copy())
        self.addCleanup(lambda: (child.poll() is None and child.kill(), child.wait(), child.stdin and child.stdin.close(), child.stdout and child.stdout.close()))
        said = lines_of(child)
        self.assertEqual(said.get(timeout=PATIENCE_S), "beating")
        second = server.client(app, pinned=False, hardware_id=b)
        self.assert_seat_taken(second, code)

        def wait_for_beat_at(moment: datetime) -> None:
            while True:
                line = said.get(timeout=PATIENCE_S).split()
                if line[:1] != ["beat"]:
                    raise AssertionError(f"the client process said {line!r}")
                if datetime.fromisoformat(line[1]) >= moment:
                    return

        for _ in range(5):
            wait_for_beat_at(server.advance(INTERVAL_S))
            self.assert_seat_taken(second, code)
        child.kill()
        child.wait()
        # Nobody beats for the dead client: its seat is held to the end of its last lease, no longer.
        self.assert_seat_taken(second, code)
        server.advance(LEASE.total_seconds() - 1)
        self.assert_seat_taken(second, code)
        server.advance(1)
        second.login(code=code)
        context = second.app_context()
        assert context.user is not None
        second.logout()


if __name__ == "__main__":
    unittest.main()
