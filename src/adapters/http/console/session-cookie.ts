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

/**
 * The console token in the gh_console cookie, or undefined. Strict on purpose: a value that is not
 * token-shaped counts as none, and so do two gh_console cookies (one planted by a sibling domain
 * or a longer path must not pick the account a browser acts as).
 */
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

function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  // Secure whenever the request came over HTTPS, directly or through a trusted proxy.
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.header('set-cookie', cookie(request, token, BROWSER_SESSION_MS / 1000));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookie(request, '', 0));
}

/** The server's own origin parts, as the trusted-proxy setting resolves them. */
export const ownOrigin = (request: FastifyRequest): ConsoleRequest['own'] => ({ protocol: request.protocol, host: request.host });

/** Everything console authentication needs from a request. */
export function consoleRequestOf(request: FastifyRequest): ConsoleRequest {
  return {
    method: request.method,
    bearer: bearer(request),
    cookie: sessionCookie(request),
    csrfToken: header(request, 'x-csrf-token'),
    origin: header(request, 'origin'),
    own: ownOrigin(request),
  };
}
