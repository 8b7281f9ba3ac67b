// The rules of browser (cookie) sessions on the owner console: how long they live, which requests
// must prove they come from the dashboard itself, and what counts as a live console token.
import type { Instant } from './time.js';

/** A browser session's console token lives 12 hours from sign-in (CLI and API tokens: no expiry). */
export const BROWSER_SESSION_MS = 12 * 60 * 60_000;

/** How a console request was authenticated: a Bearer header is never sent by a browser on its own. */
export type ConsoleCredentialSource = 'bearer' | 'cookie';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A cookie rides along with any request the browser makes, so a cookie-authenticated request that
 * changes something must also carry the CSRF token (which another site cannot read). Bearer
 * tokens are not ambient and need no proof.
 */
export const needsCsrfToken = (source: ConsoleCredentialSource, method: string): boolean =>
  source === 'cookie' && !SAFE_METHODS.has(method.toUpperCase());

/** `scheme://host[:port]` in the one spelling URL gives it (lower case, default port dropped); null if malformed. */
function normalOrigin(raw: string): string | null {
  try {
    const origin = new URL(raw).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * An `Origin` header that is present and names another origin than the server's own (its
 * protocol and Host, as the trusted-proxy setting resolves them) marks a cross-site request:
 * browsers send it on every state-changing fetch. Absent, it decides nothing; `null` or garbled,
 * it is foreign.
 */
export function isForeignOrigin(origin: string | undefined, own: { protocol: string; host: string }): boolean {
  if (origin === undefined) return false;
  const presented = normalOrigin(origin);
  return presented === null || presented !== normalOrigin(`${own.protocol}://${own.host}`);
}

/** A console token still admits its holder: not revoked and, for browser sessions, not expired. */
export const consoleTokenLive = (token: { revokedAt: Instant | null; expiresAt: Instant | null }, now: Instant): boolean =>
  token.revokedAt === null && (token.expiresAt === null || now < token.expiresAt);
