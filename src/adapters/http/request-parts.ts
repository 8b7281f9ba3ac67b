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
  const raw = request.ip ?? '';
  // Asked several times a request (the request's actor, request signing, the route), and a
  // connection's requests mostly come from one address: parsed once per connection and address.
  const socket = request.raw.socket as object | null | undefined;
  if (socket == null) return parseCaller(raw);
  const known = callers.get(socket);
  if (known !== undefined && known.raw === raw) return known.caller;
  const caller = parseCaller(raw);
  callers.set(socket, { raw, caller });
  return caller;
}

/** Each connection's last address and what it parsed to (frozen: callers share it): a cache per socket, not request state. */
const callers = new WeakMap<object, { raw: string; caller: Caller }>();

function parseCaller(raw: string): Caller {
  const bare = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(raw)?.[1] ?? /^\[([^\]]+)\](?::\d{1,5})?$/.exec(raw)?.[1] ?? raw;
  const ip = parseIpAddress(bare);
  if (ip === null) throw new DomainError('MALFORMED_REQUEST', 'the client address (X-Forwarded-For) is not an IP address');
  return Object.freeze({ ip });
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
