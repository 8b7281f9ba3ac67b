"""The example program of sdk/python/README.md, run as printed (read from the README, saved as a
file, run by a fresh interpreter in an empty folder) against the real server, with the setup
the README describes: alice with 30 days, the variable latest_version, the encrypted notes.txt."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

import gatehouse
from support import Server, file_sha256, temp_dir

README = Path(__file__).resolve().parents[1] / "README.md"


def example() -> str:
    match = re.search(r"<!-- python-sdk-example -->\n```python\n(.*?)```", README.read_text("utf-8"), re.DOTALL)
    if match is None:
        raise AssertionError("sdk/python/README.md has no python block after <!-- python-sdk-example -->")
    return match.group(1)


def printed_output() -> str:
    match = re.search(r"it prints:\n\n```\n(.*?)```", README.read_text("utf-8"), re.DOTALL)
    if match is None:
        raise AssertionError("sdk/python/README.md shows no output of the example")
    return match.group(1)


class ReadmeExample(unittest.TestCase):
    def test_the_example_runs_as_written(self) -> None:
        server = Server()
        app = server.create_app()  # device_auth on, as the example's hardware_id expects
        server.console("PUT", f"/applications/{app.id}/variables/latest_version", {"value": "1.4.2", "is_public": True}, expect=200)
        _, notes_digest = server.upload(app, "notes.txt", 5000, encrypted=True, seed=7)
        setup = server.client(app, hardware_id="machine-2")  # the device the example runs on
        setup.sign_up("alice", "alice-password-1")
        setup.activate_license(server.license(app, 30 * 24 * 60), "alice", "alice-password-1")

        folder = temp_dir(self)
        program = folder / "example.py"
        program.write_text(example(), "utf-8")
        sdk_root = Path(gatehouse.__file__).resolve().parents[1]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(sdk_root), os.environ.get("PYTHONPATH", "")])),
            "GATEHOUSE_URL": server.base,
            "GATEHOUSE_API_KEY": app.api_key,
            "GATEHOUSE_API_SECRET": app.api_secret,
            "GATEHOUSE_FILES_ENCRYPTION_KEY": app.files_encryption_key,
            "GATEHOUSE_APPLICATION_ID": app.id,
            "GATEHOUSE_RESPONSE_SIGNING_PUBLIC_KEY": app.public_key,
            "APP_USERNAME": "alice",
            "APP_PASSWORD": "alice-password-1",
        }
        run = subprocess.run([sys.executable, program.name], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, printed_output())
        self.assertEqual(file_sha256(folder / "notes.txt"), notes_digest)

        # The error paths of the example: an inactive membership ends the program with its message.
        setup.sign_up("bob", "bob-password-1")
        refused = subprocess.run([sys.executable, program.name], cwd=folder, env={**env, "APP_USERNAME": "bob", "APP_PASSWORD": "bob-password-1"}, capture_output=True, text=True, timeout=120)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("No active membership", refused.stderr)


if __name__ == "__main__":
    unittest.main()
