"""Errors typed by error_code: every code the server maps (src/adapters/http/errors.ts) has its
class, and the error body's fields land on the exception."""

from __future__ import annotations

import json
import re
import unittest
from datetime import datetime, timezone

import gatehouse
from gatehouse.errors import _CLASS_BY_CODE, error_from_response
from support import REPO_ROOT


def _body(**fields: object) -> bytes:
    return json.dumps(fields).encode()


class ErrorMapping(unittest.TestCase):
    def test_every_code_the_server_maps_has_a_class(self) -> None:
        source = (REPO_ROOT / "src" / "adapters" / "http" / "errors.ts").read_text("utf-8")
        start = source.index("statusByCode = {")
        table = source[start : source.index("}", start)]
        codes = re.findall(r"^\s*([A-Z][A-Z_]+):\s*\d{3},?\s*$", table, re.MULTILINE)
        self.assertGreater(len(codes), 40)
        for code in codes:
            with self.subTest(code):
                error = error_from_response(400, {}, _body(error_code=code, message="m"))
                self.assertEqual(error.error_code, code)
                if code != "TIMED_OUT":
                    self.assertIn(code, _CLASS_BY_CODE)
                    self.assertIsNot(type(error), gatehouse.GatehouseError, code)

    def test_timed_out_carries_until_and_reason(self) -> None:
        error = error_from_response(403, {}, _body(error_code="TIMED_OUT", message="timed out", timed_out_until="2030-01-01T00:00:00.000Z", reason="cool off"))
        self.assertIsInstance(error, gatehouse.TimedOutError)
        assert isinstance(error, gatehouse.TimedOutError)
        self.assertEqual(error.timed_out_until, datetime(2030, 1, 1, tzinfo=timezone.utc))
        self.assertEqual(error.reason, "cool off")
        self.assertEqual((error.status, error.message), (403, "timed out"))
        without = error_from_response(403, {}, _body(error_code="TIMED_OUT", message="timed out", timed_out_until="2030-01-01T00:00:00.000Z"))
        assert isinstance(without, gatehouse.TimedOutError)
        self.assertIsNone(without.reason)

    def test_reset_cooldown_carries_next_reset_at_and_retry_after(self) -> None:
        error = error_from_response(429, {"retry-after": "3600"}, _body(error_code="RESET_COOLDOWN", message="wait", next_reset_at="2030-01-01T10:00:00.000Z"))
        assert isinstance(error, gatehouse.ResetCooldownError)
        self.assertEqual(error.next_reset_at, datetime(2030, 1, 1, 10, tzinfo=timezone.utc))
        self.assertEqual(error.retry_after_seconds, 3600)

    def test_field_errors_retry_after_and_unknown_codes(self) -> None:
        error = error_from_response(422, {}, _body(error_code="VALIDATION_FAILED", message="bad", errors=[{"field": "username", "message": "too long"}]))
        self.assertIsInstance(error, gatehouse.ValidationError)
        self.assertEqual(error.field_errors, [gatehouse.FieldError("username", "too long")])
        limited = error_from_response(429, {"retry-after": "17"}, _body(error_code="ACCOUNT_LOCKED", message="locked"))
        self.assertIsInstance(limited, gatehouse.RateLimitedError)
        self.assertEqual(limited.retry_after_seconds, 17)
        unknown = error_from_response(418, {}, _body(error_code="SOMETHING_NEW", message="new"))
        self.assertIs(type(unknown), gatehouse.GatehouseError)
        self.assertEqual(unknown.error_code, "SOMETHING_NEW")

    def test_a_body_that_is_not_a_gatehouse_error(self) -> None:
        error = error_from_response(502, {}, b"<html>Bad gateway</html>")
        self.assertEqual((error.error_code, error.status), ("UNEXPECTED_RESPONSE", 502))
        self.assertIn("Bad gateway", error.message)


if __name__ == "__main__":
    unittest.main()
