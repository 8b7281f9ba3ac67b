// What a route answers, declared beside it: its success bodies by status, and the error codes it
// can refuse with (docs/api.md, API reference). Fastify serialises with the schemas; openapi.ts turns
// both into the route's operation; in tests answer-check.ts holds every answer to them.
import type { TSchema } from 'typebox';
import type { ErrorCode } from '../../domain/errors.js';
import { ErrorBody } from './wire-schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error codes this route can answer beyond those of its API (openapi.ts). */
    errors?: readonly ErrorCode[];
    /** A file upload: a multipart body, given the upload deadline (server.ts). */
    upload?: boolean;
    /** Not part of the API: left out of the OpenAPI document (the dashboard's files, the reference page). */
    undocumented?: boolean;
    /** Its success answer is JSON text the route made itself, not an object Fastify serialises. */
    serialised?: boolean;
  }
}

/** A route's `schema.response`: its success bodies, and the one error body for every 4xx and 5xx. */
export function answers<T extends Record<number, TSchema>>(ok: T): T & { '4xx': typeof ErrorBody; '5xx': typeof ErrorBody } {
  return { ...ok, '4xx': ErrorBody, '5xx': ErrorBody };
}
