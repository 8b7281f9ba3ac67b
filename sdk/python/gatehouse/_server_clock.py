"""The server's clock as the client estimates it: the time an answer carried (its signed
x-timestamp, or its Date header for an application with response_signing off) plus the time
elapsed since on the monotonic clock, so the device's wall clock never counts once the server
has answered (docs/sdk.md, Client SDK: the clock of a signed request)."""

from __future__ import annotations

import re
import threading
import time
from email.utils import parsedate_to_datetime
from typing import Mapping, Optional

_TIMESTAMP = re.compile(r"[0-9]{1,15}")


def server_time_of(headers: Mapping[str, str]) -> Optional[float]:
    """The server's time (Unix seconds) an answer's headers give: x-timestamp, else Date."""
    timestamp = headers.get("x-timestamp")
    if timestamp is not None:
        return float(timestamp) if _TIMESTAMP.fullmatch(timestamp) else None
    date = headers.get("date")
    if date is None:
        return None
    try:
        return parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError, IndexError):
        return None


class ServerClock:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server_time: Optional[float] = None
        self._anchor = 0.0

    def now(self) -> float:
        """Estimated server time in Unix seconds; the device's clock until an answer told it."""
        with self._lock:
            if self._server_time is None:
                return time.time()
            return self._server_time + (time.monotonic() - self._anchor)

    def observe(self, headers: Mapping[str, str]) -> bool:
        """Learns the server's time from an answer; whether the estimate moved by over a second."""
        seen = server_time_of(headers)
        if seen is None:
            return False
        before = self.now()
        with self._lock:
            # Both headers are whole seconds, cut down: the middle of that second is the best estimate.
            self._server_time = seen + 0.5
            self._anchor = time.monotonic()
        return abs(seen + 0.5 - before) > 1.0
