// The browser session on the wire: the gh_console cookie (read strictly, written with the flags
// that keep it from scripts and other sites) and the parts of a request console authentication
// looks at.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleRequest } from '../../../application/console/browser-sessions.js';
import { BROWSER_SESSION_MS } from '../../../domain/console-session.js';
import { bearer, header } from '../request-parts.js';

export const SESSION_COOKIE = 'gh_console';
/** The cookie goes only to the console API: the dashboard's pages and assets never see it. */
const COOKIE_PATH = '/api/console';
/** What a console token looks like (prefix and base64url); anything else is not ours. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,200}$/;

/** The console token in the gh_console cookie, or undefined. Strict on purpose: a value that is not
 * token-shaped counts as none, and so do two gh_console cookies (one planted by a sibling domain
 * or a longer path must not pick the account a browser acts as). */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const raw = header(request, 'cookie');
  if (raw === undefined) return undefined;
  const values = raw
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${SESSION_COOKIE}=`))
    .map((pair) => pair.slice(SESSION_COOKIE.length + 1));
  const [value] = values;
  return values.length === 1 && value !== undefined && TOKEN_SHAPE.test(value) ? value : undefined;
}

/** GATEHOUSE_COOKIE_SECURE (docs/configuration.md): `auto` trusts what the request says (HTTPS, or a
 * trusted proxy's X-Forwarded-Proto); `always` declares browsers reach the console over HTTPS, so the
 * cookie is always Secure and our own origin is https (the dashboard's Origin then reads as ours). */
export type CookieSecurity = 'auto' | 'always';

/** The browser session's cookie and origin, under one CookieSecurity setting. */
export interface SessionCookies {
  set(request: FastifyRequest, reply: FastifyReply, token: string): void;
  clear(request: FastifyRequest, reply: FastifyReply): void;
  /** The server's own origin parts, as the trusted-proxy setting (and `always`) resolve them. */
  ownOrigin(request: FastifyRequest): ConsoleRequest['own'];
  /** Everything console authentication needs from a request. */
  consoleRequestOf(request: FastifyRequest): ConsoleRequest;
}

export function createSessionCookies(security: CookieSecurity): SessionCookies {
  const protocolOf = (request: FastifyRequest) => (security === 'always' ? 'https' : request.protocol);
  const cookie = (request: FastifyRequest, value: string, maxAgeSeconds: number): string => {
    // Secure whenever the request came over HTTPS, directly or through a trusted proxy, or the setting says so.
    const secure = protocolOf(request) === 'https' ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
  };
  const ownOrigin = (request: FastifyRequest): ConsoleRequest['own'] => ({ protocol: protocolOf(request), host: request.host });
  return {
    set: (request, reply, token) => void reply.header('set-cookie', cookie(request, token, BROWSER_SESSION_MS / 1000)),
    clear: (request, reply) => void reply.header('set-cookie', cookie(request, '', 0)),
    ownOrigin,
    consoleRequestOf: (request) => ({
      method: request.method,
      bearer: bearer(request),
      cookie: sessionCookie(request),
      csrfToken: header(request, 'x-csrf-token'),
      origin: header(request, 'origin'),
      own: ownOrigin(request),
    }),
  };
}
