// The TypeScript SDK's heartbeat timer on its own (src/client/heartbeat-timer.ts): the delay comes
// from each lease; a server out of reach is retried, a refusal stops it and is reported once.
import { describe, expect, it } from 'vitest';
import { GatehouseError, SessionExpiredError } from '../src/client/errors.js';
import { heartbeatTimer, nextBeatDelay, type HeartbeatSchedule } from '../src/client/heartbeat-timer.js';
import type { Lease } from '../src/client/types.js';

const at = (serverMs: number, leaseMs: number): Lease => ({ server_time: new Date(serverMs).toISOString(), lease_expires_at: new Date(serverMs + leaseMs).toISOString() });

function manual() {
  const delays: number[] = [];
  let pending: (() => Promise<void>) | null = null;
  const schedule: HeartbeatSchedule = (beat, ms) => {
    delays.push(ms);
    pending = beat;
    return () => (pending = null);
  };
  const fire = async () => {
    const beat = pending;
    pending = null;
    if (beat === null) throw new Error('no beat pending');
    await beat();
  };
  return { schedule, delays, fire, pending: () => pending !== null };
}

describe('heartbeatTimer', () => {
  it('beats at half of each lease, at least a second apart', () => {
    expect(nextBeatDelay(at(0, 60_000))).toBe(30_000);
    expect(nextBeatDelay(at(0, 600_000))).toBe(300_000);
    expect(nextBeatDelay(at(0, 100))).toBe(1000);
  });

  it('goes on after a beat that failed to reach the server, and stops on the first refusal', async () => {
    const timer = manual();
    const answers: Array<Lease | Error> = [
      at(0, 120_000),
      new TypeError('fetch failed'),
      new GatehouseError(503, 'SERVICE_UNAVAILABLE', 'down'),
      new SessionExpiredError(401, 'SESSION_EXPIRED', 'gone'),
    ];
    const failed: unknown[] = [];
    const lost: GatehouseError[] = [];
    const beat = async () => {
      const next = answers.shift() as Lease | Error;
      if (next instanceof Error) throw next;
      return next;
    };
    heartbeatTimer(beat, at(0, 60_000), { schedule: timer.schedule, onBeatFailed: (e) => failed.push(e), onLeaseLost: (e) => lost.push(e) });
    for (let i = 0; i < 4; i++) await timer.fire();
    // The first delay from the first lease, the next ones from the lease after it.
    expect(timer.delays).toEqual([30_000, 60_000, 60_000, 60_000]);
    expect(failed.map((e) => (e as Error).message)).toEqual(['fetch failed', 'down']);
    expect(lost.map((e) => e.code)).toEqual(['SESSION_EXPIRED']);
    expect(timer.pending()).toBe(false);
  });

  it('stop() cancels the pending beat', () => {
    const timer = manual();
    const running = heartbeatTimer(async () => at(0, 60_000), at(0, 60_000), { schedule: timer.schedule });
    expect(timer.pending()).toBe(true);
    running.stop();
    expect(timer.pending()).toBe(false);
  });
});
