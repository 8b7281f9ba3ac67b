// Schemas and small helpers shared by the console route files.
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { OwnerRecord } from '../../../application/ports.js';
import { validationError } from '../../../domain/errors.js';
import { Uuid, closed } from '../schemas.js';

export const AppParams = Type.Object({ app_id: Uuid }, closed);

/**
 * Bound on any minutes field (100 years): enough for any real grant, small enough that adding it
 * to a timestamp stays far inside the range a date can represent.
 */
export const MINUTES_MAX = 52_596_000;

/** Reason strings on bans, timeouts and adjustments. */
export const Reason = Type.String({ maxLength: 500 });

/** An ISO 8601 date-time from a schema-checked string, as epoch milliseconds. */
export function instantOf(field: string, value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw validationError(field, 'must be an ISO 8601 date-time');
  return t;
}

// The owner a request was authenticated as, set by the console plugin's onRequest hook.
const owners = new WeakMap<FastifyRequest, OwnerRecord>();

export function setOwner(request: FastifyRequest, owner: OwnerRecord): void {
  owners.set(request, owner);
}

export function ownerOf(request: FastifyRequest): OwnerRecord {
  const owner = owners.get(request);
  // Only reachable if a route were registered outside the authenticated scope: a bug, not a 401.
  if (owner === undefined) throw new Error('console route reached without an authenticated owner');
  return owner;
}
