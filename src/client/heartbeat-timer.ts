// The SDK's heartbeat timer (docs/sdk.md, "Heartbeats"): beats at half the lease the server
// answers, so one lost beat is survived; a refusal ends it and goes to the caller.
import { GatehouseError } from './errors.js';
import type { Lease } from './types.js';

/** Runs `beat` after `ms`; the function returned cancels it. Tests pass one that runs when they say. */
export type HeartbeatSchedule = (beat: () => Promise<void>, ms: number) => () => void;

export interface HeartbeatOptions {
  /** Called once when the server refuses a beat (the lease lapsed, the session ended, the user was
   * banned...): the timer has stopped; log in again to go on. */
  onLeaseLost?: (error: GatehouseError) => void;
  /** Called when a beat could not reach the server or it failed (5xx, 429): the timer goes on. */
  onBeatFailed?: (error: unknown) => void;
  schedule?: HeartbeatSchedule;
}

/** Beats at least this far apart, whatever the lease says. */
const MIN_DELAY_MS = 1000;

const unrefTimeout: HeartbeatSchedule = (beat, ms) => {
  const handle = setTimeout(() => void beat(), ms);
  // A heartbeat alone does not keep the process alive.
  handle.unref();
  return () => clearTimeout(handle);
};

/** Half the time the lease has left on the server's clock: the next beat's delay. */
export function nextBeatDelay(lease: Lease): number {
  const left = Date.parse(lease.lease_expires_at) - Date.parse(lease.server_time);
  return Math.max(MIN_DELAY_MS, Math.floor(left / 2));
}

/** Whether a beat's failure means the lease is gone, rather than the server out of reach for now. */
const leaseLost = (error: unknown): error is GatehouseError => error instanceof GatehouseError && error.status >= 400 && error.status < 500 && error.status !== 429;

/** A running heartbeat, started after a first beat answered `first`; stop() ends it. */
export function heartbeatTimer(beat: () => Promise<Lease>, first: Lease, options: HeartbeatOptions): { stop(): void } {
  const schedule = options.schedule ?? unrefTimeout;
  let stopped = false;
  let cancel = () => {};
  let delay = nextBeatDelay(first);
  const tick = async () => {
    if (stopped) return;
    try {
      const lease = await beat();
      delay = nextBeatDelay(lease);
    } catch (error) {
      if (stopped) return;
      if (leaseLost(error)) {
        stopped = true;
        options.onLeaseLost?.(error);
        return;
      }
      options.onBeatFailed?.(error);
    }
    if (!stopped) cancel = schedule(tick, delay);
  };
  cancel = schedule(tick, delay);
  return {
    stop() {
      stopped = true;
      cancel();
    },
  };
}
