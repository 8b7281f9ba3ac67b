// The rules of browser (cookie) sessions on the owner console: how long they live, which requests
// must prove they come from the dashboard itself, and what counts as a live console token (the
// idle expiry of Bearer tokens among it).
import type { Instant } from './time.js';

/** A browser session's console token lives 12 hours from sign-in, however it is used. */
export const BROWSER_SESSION_MS = 12 * 60 * 60_000;

/** How a console request was authenticated: a Bearer header is never sent by a browser on its own. */
export type ConsoleCredentialSource = 'bearer' | 'cookie';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A cookie rides along with any request the browser makes, so a cookie-authenticated request that
 * changes something must also carry the CSRF token (which another site cannot read). Bearer tokens
 * are not ambient and need no proof. */
export const needsCsrfToken = (source: ConsoleCredentialSource, method: string): boolean => source === 'cookie' && !SAFE_METHODS.has(method.toUpperCase());

/** `scheme://host[:port]` in the one spelling URL gives it (lower case, default port dropped); null if malformed. */
function normalOrigin(raw: string): string | null {
  try {
    const origin = new URL(raw).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** A present `Origin` naming another origin than the server's own (its protocol and Host, as the
 * trusted-proxy setting resolves them) marks a cross-site request: browsers send it on every
 * state-changing fetch. Absent, it decides nothing; `null` or garbled, it is foreign. */
export function isForeignOrigin(origin: string | undefined, own: { protocol: string; host: string }): boolean {
  if (origin === undefined) return false;
  const presented = normalOrigin(origin);
  return presented === null || presented !== normalOrigin(`${own.protocol}://${own.host}`);
}

/** What the liveness rules read of a console token. */
export interface ConsoleTokenTimes {
  kind: 'bearer' | 'cookie';
  createdAt: Instant;
  revokedAt: Instant | null;
  expiresAt: Instant | null;
  lastUsedAt: Instant | null;
}

/** Uses closer together than this are not written down: authentication stays a read. */
export const TOKEN_TOUCH_INTERVAL_MS = 60_000;

/** When a console token stops working, or null if never: a browser session at its fixed expiry, a
 * Bearer token `idleMs` after its last use (or creation), the earlier when both apply
 * (docs/configuration.md, GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS). */
export function consoleTokenExpiry(token: ConsoleTokenTimes, idleMs: number): Instant | null {
  const idle = token.kind === 'bearer' ? (token.lastUsedAt ?? token.createdAt) + idleMs : null;
  if (token.expiresAt === null) return idle;
  return idle === null ? token.expiresAt : Math.min(idle, token.expiresAt);
}

/** A console token still admits its holder: not revoked and not expired. */
export function consoleTokenLive(token: ConsoleTokenTimes, now: Instant, idleMs: number): boolean {
  const expiry = consoleTokenExpiry(token, idleMs);
  return token.revokedAt === null && (expiry === null || now < expiry);
}

/** Whether this use must be written down: at most once per TOKEN_TOUCH_INTERVAL_MS, so a Bearer token's
 * idle window slides forward with its use, give or take a minute. */
export const consoleTokenNeedsTouch = (token: ConsoleTokenTimes, now: Instant): boolean => now - (token.lastUsedAt ?? token.createdAt) >= TOKEN_TOUCH_INTERVAL_MS;
