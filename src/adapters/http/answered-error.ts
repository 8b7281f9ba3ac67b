// The error code an answer carried, for whoever looks at the answer after it went out (the
// metrics count refusals by code: docs/configuration.md, Metrics). sendError notes it; nothing else writes it.
import type { FastifyReply } from 'fastify';
import type { ErrorCode } from '../../domain/errors.js';

const codes = new WeakMap<FastifyReply, ErrorCode>();

export const noteErrorCode = (reply: FastifyReply, code: ErrorCode): void => void codes.set(reply, code);

/** The error code `reply` answered with, or null when it answered without one. */
export const answeredErrorCode = (reply: FastifyReply): ErrorCode | null => codes.get(reply) ?? null;
