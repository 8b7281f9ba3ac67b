// When PostgreSQL cannot be reached (Dialect.unreachable): the connection failed, was lost or the
// server is shutting down. A statement's own failure (a constraint, a syntax error) is not this.
import { driverError } from '../dialect.js';

/** Errors of the socket (Node) and of postgres.js's connection handling. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

export function postgresUnreachable(e: unknown): boolean {
  const found = driverError(e, (cur) => {
    const { code, syscall } = cur as { code?: unknown; syscall?: unknown };
    if (typeof code !== 'string') return null;
    // Class 08 is connection_exception; a failed connect() (a missing socket file) says the same.
    return CONNECTION_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08') || syscall === 'connect' ? true : null;
  });
  return found === true;
}
