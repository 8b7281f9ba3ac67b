import { describe, expect, it } from 'vitest';
import { BROWSER_SESSION_MS, consoleTokenExpiry, consoleTokenLive, consoleTokenNeedsTouch, isForeignOrigin, needsCsrfToken } from '../../src/domain/console-session.js';

const IDLE = 720 * 3_600_000;

describe('console browser sessions', () => {
  it('asks a CSRF token of cookie-authenticated requests that may change state, and of nothing else', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) expect(needsCsrfToken('cookie', method)).toBe(true);
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get']) expect(needsCsrfToken('cookie', method)).toBe(false);
    for (const method of ['GET', 'POST', 'DELETE']) expect(needsCsrfToken('bearer', method)).toBe(false);
  });

  it("tells a foreign Origin from the server's own, ignoring case and default ports", () => {
    const own = { protocol: 'https', host: 'Gate.Example.com' };
    expect(isForeignOrigin(undefined, own)).toBe(false);
    expect(isForeignOrigin('https://gate.example.com', own)).toBe(false);
    expect(isForeignOrigin('https://gate.example.com:443', own)).toBe(false);
    expect(isForeignOrigin('https://gate.example.com', { protocol: 'https', host: 'gate.example.com:443' })).toBe(false);
    expect(isForeignOrigin('http://gate.example.com', own)).toBe(true);
    expect(isForeignOrigin('https://gate.example.com:8443', own)).toBe(true);
    expect(isForeignOrigin('https://evil.example', own)).toBe(true);
    expect(isForeignOrigin('null', own)).toBe(true);
    expect(isForeignOrigin('not a url', own)).toBe(true);
  });

  it('keeps a browser session live until it is revoked or its 12 hours end, however it is used', () => {
    const t0 = Date.parse('2026-06-08T12:00:00.000Z');
    const browser = { kind: 'cookie' as const, createdAt: t0, revokedAt: null, expiresAt: t0 + BROWSER_SESSION_MS, lastUsedAt: null };
    expect(consoleTokenLive(browser, t0 + BROWSER_SESSION_MS - 1, IDLE)).toBe(true);
    expect(consoleTokenLive(browser, t0 + BROWSER_SESSION_MS, IDLE)).toBe(false);
    // Use does not extend a browser session.
    expect(consoleTokenLive({ ...browser, lastUsedAt: t0 + BROWSER_SESSION_MS - 1 }, t0 + BROWSER_SESSION_MS, IDLE)).toBe(false);
    expect(consoleTokenExpiry(browser, IDLE)).toBe(t0 + BROWSER_SESSION_MS);
    expect(consoleTokenLive({ ...browser, revokedAt: t0 }, t0 + 1, IDLE)).toBe(false);
    expect(BROWSER_SESSION_MS).toBe(43_200_000);
  });

  it('keeps a Bearer token live while it is used within the idle time: each use slides its expiry', () => {
    const t0 = Date.parse('2026-06-08T12:00:00.000Z');
    const bearer = { kind: 'bearer' as const, createdAt: t0, revokedAt: null, expiresAt: null, lastUsedAt: null };
    // Never used: counted from its creation.
    expect(consoleTokenLive(bearer, t0 + IDLE - 1, IDLE)).toBe(true);
    expect(consoleTokenLive(bearer, t0 + IDLE, IDLE)).toBe(false);
    const used = { ...bearer, lastUsedAt: t0 + 10 * IDLE };
    expect(consoleTokenExpiry(used, IDLE)).toBe(t0 + 11 * IDLE);
    expect(consoleTokenLive(used, t0 + 11 * IDLE - 1, IDLE)).toBe(true);
    expect(consoleTokenLive(used, t0 + 11 * IDLE, IDLE)).toBe(false);
    expect(consoleTokenLive({ ...used, revokedAt: t0 + 10 * IDLE }, t0 + 10 * IDLE + 1, IDLE)).toBe(false);
  });

  it('writes a use down at most once a minute', () => {
    const t0 = Date.parse('2026-06-08T12:00:00.000Z');
    const bearer = { kind: 'bearer' as const, createdAt: t0, revokedAt: null, expiresAt: null, lastUsedAt: null };
    expect(consoleTokenNeedsTouch(bearer, t0 + 59_999)).toBe(false);
    expect(consoleTokenNeedsTouch(bearer, t0 + 60_000)).toBe(true);
    expect(consoleTokenNeedsTouch({ ...bearer, lastUsedAt: t0 + 90_000 }, t0 + 120_000)).toBe(false);
    expect(consoleTokenNeedsTouch({ ...bearer, lastUsedAt: t0 + 90_000 }, t0 + 150_000)).toBe(true);
  });
});
