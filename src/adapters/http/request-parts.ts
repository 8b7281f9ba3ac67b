import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../application/deps.js';
import type { PresentedUser } from '../../application/integration/authenticate-user.js';
import { DomainError, validationError } from '../../domain/errors.js';
import { parseIpAddress } from '../../domain/ip-address.js';

/** One header's value, or undefined when absent or empty. */
export function header(request: FastifyRequest, name: string): string | undefined {
  const raw = request.headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === '' ? undefined : value;
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearer(request: FastifyRequest): string | undefined {
  const raw = header(request, 'authorization');
  if (raw === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(raw);
  // A malformed Authorization header still counts as presented credentials: it must not fall
  // through to anonymous access.
  return match?.[1] ?? raw;
}

/** The client's address in its one spelling (docs/choices.md, "Client addresses"): the socket's, or
 * behind a trusted proxy the forwarded one, which may carry a port (`[2001:db8::1]:443`) as some
 * proxies write it. Anything not an address is refused, so it never becomes a ban or throttle. */
export function callerOf(request: FastifyRequest): Caller {
  // Asked several times a request (the request's actor, request signing, the route): parsed once.
  if (request.caller === undefined) request.caller = parseCaller(request.ip ?? '');
  if (request.caller === null) throw new DomainError('MALFORMED_REQUEST', 'the client address (X-Forwarded-For) is not an IP address');
  return request.caller;
}

/** The caller at `raw`, or null when it is not an address (a forwarded value may be anything). */
function parseCaller(raw: string): Caller | null {
  const bare = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(raw)?.[1] ?? /^\[([^\]]+)\](?::\d{1,5})?$/.exec(raw)?.[1] ?? raw;
  const ip = parseIpAddress(bare);
  return ip === null ? null : Object.freeze({ ip });
}

/** Header limits, as the body schemas bound the same fields. */
const LIMITS = { 'x-api-license-code': 100, 'x-api-username': 256, 'x-api-password': 1024, 'x-hardware-id': 256 } as const;

function bounded(request: FastifyRequest, name: keyof typeof LIMITS): string | undefined {
  const value = header(request, name);
  if (value !== undefined && value.length > LIMITS[name]) throw validationError(name, `must be at most ${LIMITS[name]} characters`);
  return value;
}

export function presentedUser(request: FastifyRequest): PresentedUser {
  return {
    bearer: bearer(request),
    licenseCode: bounded(request, 'x-api-license-code'),
    username: bounded(request, 'x-api-username'),
    password: bounded(request, 'x-api-password'),
    hardwareId: bounded(request, 'x-hardware-id'),
  };
}
