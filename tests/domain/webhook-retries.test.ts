// The Standard Webhooks retry schedule (docs/api.md, Webhooks, "Retries").
import { describe, expect, it } from 'vitest';
import { MAX_DELIVERY_ATTEMPTS, MAX_RETRY_AFTER_MS, nextStep, RETRY_DELAYS_MS, retryAfterMs, retryDelay } from '../../src/domain/webhook-retries.js';

const NOW = Date.parse('2026-06-08T12:00:00Z');
const fixed = (r: number) => () => r;
const failed = (statusCode: number | null, retryAfter: string | null = null) => ({ statusCode, retryAfter });

describe('the schedule', () => {
  it('is at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8);
  });

  it('spreads each delay by up to a tenth either way', () => {
    expect(retryDelay(1, fixed(0))).toBe(4_500);
    expect(retryDelay(1, fixed(0.5))).toBe(5_000);
    expect(retryDelay(1, fixed(0.999999))).toBe(5_500);
    expect(retryDelay(7, fixed(0.5))).toBe(36_000_000);
    expect(retryDelay(8, fixed(0.5))).toBeNull();
  });
});

describe('nextStep', () => {
  it('a 2xx succeeds', () => {
    for (const code of [200, 201, 204, 299]) expect(nextStep(1, failed(code), NOW, fixed(0.5))).toEqual({ state: 'succeeded' });
  });

  it('410 gives up at once, whatever attempts remain', () => {
    expect(nextStep(1, failed(410), NOW, fixed(0.5))).toEqual({ state: 'failed', why: 'gone' });
  });

  it('anything else (3xx included, no answer) waits its turn', () => {
    for (const code of [301, 302, 400, 404, 429, 500, 503, null]) {
      expect(nextStep(1, failed(code), NOW, fixed(0.5))).toEqual({ state: 'pending', runAfter: NOW + 5_000 });
    }
    expect(nextStep(3, failed(500), NOW, fixed(0.5))).toEqual({ state: 'pending', runAfter: NOW + 1_800_000 });
  });

  it('gives up after the eighth attempt', () => {
    expect(nextStep(7, failed(500), NOW, fixed(0.5))).toMatchObject({ state: 'pending' });
    expect(nextStep(8, failed(500), NOW, fixed(0.5))).toEqual({ state: 'failed', why: 'exhausted' });
  });

  it('honours a longer Retry-After (seconds or a date), never a shorter one, up to a day', () => {
    expect(nextStep(1, failed(503, '120'), NOW, fixed(0.5))).toEqual({ state: 'pending', runAfter: NOW + 120_000 });
    expect(nextStep(1, failed(429, '1'), NOW, fixed(0.5))).toEqual({ state: 'pending', runAfter: NOW + 5_000 });
    expect(nextStep(1, failed(503, new Date(NOW + 600_000).toUTCString()), NOW, fixed(0.5))).toEqual({ state: 'pending', runAfter: NOW + 600_000 });
    expect(nextStep(1, failed(503, String(10 * 86_400)), NOW, fixed(0.5))).toEqual({ state: 'pending', runAfter: NOW + MAX_RETRY_AFTER_MS });
    expect(nextStep(1, failed(503, 'soon'), NOW, fixed(0.5))).toEqual({ state: 'pending', runAfter: NOW + 5_000 });
  });

  it('reads Retry-After', () => {
    expect(retryAfterMs(null, NOW)).toBeNull();
    expect(retryAfterMs(' 30 ', NOW)).toBe(30_000);
    expect(retryAfterMs(new Date(NOW - 5_000).toUTCString(), NOW)).toBe(0);
    expect(retryAfterMs('-3', NOW)).toBeNull();
  });
});
