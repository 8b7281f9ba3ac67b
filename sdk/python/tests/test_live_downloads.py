"""download_file against the real server: plain and encrypted files to disk, an encrypted file
without the key (saved as stored), and a 64 MiB encrypted file decrypted to disk in a fresh
process whose memory must grow by less than 32 MiB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import unittest
from pathlib import Path

import gatehouse
from support import App, MiB, Server, file_sha256, temp_dir, unique

server: Server
app: App


def setUpModule() -> None:
    global server, app
    server = Server()
    app = server.create_app(device_auth=True, default_allowed_devices=5, default_allowed_sessions=5, ban_propagation=False)


class Downloads(unittest.TestCase):
    def test_plain_and_encrypted_files_land_on_disk_whole(self) -> None:
        plain_id, plain_digest = server.upload(app, unique("plain") + ".bin", 200_001, encrypted=False, seed=1)
        secret_id, secret_digest = server.upload(app, unique("secret") + ".bin", 3 * 65_536, encrypted=True, seed=2)
        client, _ = server.member(app, unique("downloader"))
        listed = {f.id: f for f in client.app_context().application.files}
        self.assertFalse(listed[plain_id].is_encrypted)
        self.assertTrue(listed[secret_id].is_encrypted)
        folder = temp_dir(self)
        self.assertEqual(file_sha256(client.download_file(plain_id, folder / "plain.bin")), plain_digest)
        self.assertEqual(file_sha256(client.download_file(secret_id, str(folder / "secret.bin"))), secret_digest)
        self.assertEqual(sorted(p.name for p in folder.iterdir()), ["plain.bin", "secret.bin"])
        client.logout()

    def test_without_the_files_key_an_encrypted_file_is_saved_as_stored(self) -> None:
        secret_id, secret_digest = server.upload(app, unique("stored") + ".bin", 1000, encrypted=True, seed=3)
        client, _ = server.member(app, unique("keyless"), files_encryption_key=None)
        stored = client.download_file(secret_id, temp_dir(self) / "stored.bin")
        data = stored.read_bytes()
        self.assertEqual(data[:4], b"GHFE")
        self.assertEqual(len(data), 17 + 1000 + 16)
        key = gatehouse.encrypted_file.files_key_bytes(app.files_encryption_key)
        self.assertEqual(len(gatehouse.decrypt_bytes(key, data)), 1000)
        client.logout()

    def test_64_mib_encrypted_download_streams_to_disk_in_flat_memory(self) -> None:
        size = 64 * MiB
        file_id, digest = server.upload(app, "big.bin", size, encrypted=True, seed=64)
        name = unique("big")
        server.member(app, name, hardware_id="hw-big")[0].logout()
        dest = temp_dir(self) / "big.bin"
        # A fresh interpreter, so ru_maxrss (the peak) starts from the client's own baseline.
        script = textwrap.dedent(
            """
            import json, os, resource, sys, tracemalloc
            import gatehouse
            e = os.environ
            client = gatehouse.GatehouseClient(
                e["GATEHOUSE_URL"], e["API_KEY"], e["API_SECRET"], files_encryption_key=e["FILES_KEY"],
                hardware_id="hw-big", response_signing_public_keys=e["PUBLIC_KEY"], application_id=e["APP_ID"],
            )
            client.login(e["USERNAME"], "member-password-1")
            client.app_context()
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            tracemalloc.start()
            client.download_file(e["FILE_ID"], e["DEST"])
            traced_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            # A control: the same measure sees a client that would hold the whole file at once.
            held = b"\x01" * (64 * 1024 * 1024)
            control = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - after
            print(json.dumps({"rss_growth_kib": after - before, "traced_peak_bytes": traced_peak, "control_growth_kib": control}))
            """
        )
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(server_sdk_root()), os.environ.get("PYTHONPATH", "")])),
            "API_KEY": app.api_key,
            "API_SECRET": app.api_secret,
            "FILES_KEY": app.files_encryption_key,
            "PUBLIC_KEY": app.public_key,
            "APP_ID": app.id,
            "USERNAME": name,
            "FILE_ID": file_id,
            "DEST": str(dest),
        }
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stderr)
        figures = json.loads(run.stdout.strip().splitlines()[-1])
        figures_text = f"RSS grew {figures['rss_growth_kib'] / 1024:.1f} MiB, Python allocations peaked at {figures['traced_peak_bytes'] / MiB:.1f} MiB"
        # One line of its own (the runner, tests/python-sdk/python-sdk.test.ts, shows it).
        print(f"\n64 MiB encrypted download: {figures_text}", file=sys.stderr, end=" ")
        self.assertLess(figures["rss_growth_kib"] * 1024, 32 * MiB, figures_text)
        self.assertLess(figures["traced_peak_bytes"], 32 * MiB, figures_text)
        self.assertGreater(figures["control_growth_kib"] * 1024, 32 * MiB, f"the measure must see a whole file held in memory (it saw {figures['control_growth_kib'] / 1024:.1f} MiB of 64)")
        self.assertEqual(dest.stat().st_size, size)
        self.assertEqual(file_sha256(dest), digest)


def server_sdk_root() -> Path:
    """sdk/python: where the child interpreter imports gatehouse from."""
    return Path(gatehouse.__file__).resolve().parents[1]


if __name__ == "__main__":
    unittest.main()
