"""The heartbeat thread (docs/sdk.md, Heartbeats): beats at half the lease the server answers, so
one lost beat is survived; a refusal stops it and goes to the caller's callback."""

from __future__ import annotations

import threading
from typing import Callable, Optional

from .errors import GatehouseError
from .models import Lease

#: Beats at least this far apart (seconds), whatever the lease says.
MIN_DELAY_SECONDS = 1.0


def next_beat_delay(lease: Lease) -> float:
    """Half the time the lease has left on the server's clock, in seconds."""
    left = (lease.lease_expires_at - lease.server_time).total_seconds()
    return max(MIN_DELAY_SECONDS, left / 2)


def lease_lost(error: BaseException) -> bool:
    """Whether a beat's failure means the lease is gone, not the server out of reach for now."""
    return isinstance(error, GatehouseError) and 400 <= error.status < 500 and error.status != 429


class Heartbeat:
    """A daemon thread that calls ``beat`` until stopped or refused."""

    def __init__(
        self,
        beat: Callable[[], Lease],
        first: Lease,
        on_lease_lost: Optional[Callable[[GatehouseError], None]],
        on_beat_failed: Optional[Callable[[BaseException], None]],
        on_beat: Optional[Callable[[Lease], None]],
        interval: Optional[float],
    ) -> None:
        self._beat = beat
        self._on_beat = on_beat
        self._on_lease_lost = on_lease_lost
        self._on_beat_failed = on_beat_failed
        self._interval = interval
        self._delay = interval if interval is not None else next_beat_delay(first)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gatehouse-heartbeat", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return not self._stopped.is_set()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        while not self._stopped.wait(self._delay):
            try:
                lease = self._beat()
            except BaseException as error:  # noqa: BLE001 - the thread reports, never dies silently
                if self._stopped.is_set():
                    return
                if lease_lost(error):
                    self._stopped.set()
                    if self._on_lease_lost is not None:
                        self._on_lease_lost(error)  # type: ignore[arg-type]
                    return
                if self._on_beat_failed is not None:
                    self._on_beat_failed(error)
                continue
            if self._on_beat is not None:
                self._on_beat(lease)
            if self._interval is None:
                self._delay = next_beat_delay(lease)
