import { describe, expect, it } from 'vitest';
import { BROWSER_SESSION_MS, consoleTokenLive, isForeignOrigin, needsCsrfToken } from '../../src/domain/console-session.js';

describe('console browser sessions', () => {
  it('asks a CSRF token of cookie-authenticated requests that may change state, and of nothing else', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) expect(needsCsrfToken('cookie', method)).toBe(true);
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get']) expect(needsCsrfToken('cookie', method)).toBe(false);
    for (const method of ['GET', 'POST', 'DELETE']) expect(needsCsrfToken('bearer', method)).toBe(false);
  });

  it('tells a foreign Origin from the server\'s own, ignoring case and default ports', () => {
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

  it('keeps a console token live until it is revoked or its browser session ends', () => {
    const t0 = Date.parse('2026-06-08T12:00:00.000Z');
    expect(consoleTokenLive({ revokedAt: null, expiresAt: null }, t0 + 10 * BROWSER_SESSION_MS)).toBe(true);
    expect(consoleTokenLive({ revokedAt: t0, expiresAt: null }, t0 + 1)).toBe(false);
    const browser = { revokedAt: null, expiresAt: t0 + BROWSER_SESSION_MS };
    expect(consoleTokenLive(browser, t0 + BROWSER_SESSION_MS - 1)).toBe(true);
    expect(consoleTokenLive(browser, t0 + BROWSER_SESSION_MS)).toBe(false);
    expect(BROWSER_SESSION_MS).toBe(43_200_000);
  });
});
