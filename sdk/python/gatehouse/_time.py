"""ISO 8601 timestamps as the server writes them (``2026-06-08T12:00:00.000Z``), read on
Python 3.9, whose fromisoformat knows neither ``Z`` nor every fraction length."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?", re.IGNORECASE)


def parse_timestamp(value: str) -> datetime:
    """An aware datetime (UTC when the text names no offset); ValueError for anything else."""
    match = _ISO.fullmatch(value.strip())
    if match is None:
        raise ValueError(f"not an ISO 8601 timestamp: {value!r}")
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    if offset is None or offset.upper() == "Z":
        tz = timezone.utc
    else:
        sign = -1 if offset[0] == "-" else 1
        digits = offset[1:].replace(":", "")
        tz = timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
    return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=tz)
