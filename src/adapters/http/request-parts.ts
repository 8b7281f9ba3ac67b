import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../application/deps.js';
import type { PresentedUser } from '../../application/integration/authenticate-user.js';

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

export const callerOf = (request: FastifyRequest): Caller => ({ ip: request.ip });

export function presentedUser(request: FastifyRequest): PresentedUser {
  return {
    bearer: bearer(request),
    licenseCode: header(request, 'x-api-license-code'),
    username: header(request, 'x-api-username'),
    password: header(request, 'x-api-password'),
    hardwareId: header(request, 'x-hardware-id'),
  };
}
