// Schemas and small helpers shared by the console route files.
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ConsoleCaller } from '../../../application/console/browser-sessions.js';
import type { OwnerRecord } from '../../../application/records.js';
import { validationError } from '../../../domain/errors.js';
import { Password, Uuid, closed } from '../schemas.js';

export const AppParams = Type.Object({ app_id: Uuid }, closed);

/** `POST /login` and `POST /session`: one schema, one throttle. */
export const SignInBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Password }, closed);

/** Bound on any minutes field (100 years): enough for any real grant, small enough that adding it
 * to a timestamp stays far inside the range a date can represent. */
export const MINUTES_MAX = 52_596_000;

/** Reason strings on bans, timeouts and adjustments. */
export const Reason = Type.String({ maxLength: 500 });

/** An ISO 8601 date-time from a schema-checked string, as epoch milliseconds. */
export function instantOf(field: string, value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw validationError(field, 'must be an ISO 8601 date-time');
  return t;
}

/** Who a request was authenticated as (request-state.ts), as the console plugin's onRequest hook found. */
export function setConsoleCaller(request: FastifyRequest, caller: ConsoleCaller): void {
  request.consoleCaller = caller;
}

export function consoleCallerOf(request: FastifyRequest): ConsoleCaller {
  const caller = request.consoleCaller;
  // Only reachable if a route were registered outside the authenticated scope: a bug, not a 401.
  if (caller === null) throw new Error('console route reached without an authenticated owner');
  return caller;
}

export const ownerOf = (request: FastifyRequest): OwnerRecord => consoleCallerOf(request).owner;
