// A database that cannot be reached is the service being unavailable, not a fault of the request
// (docs/api.md, Errors): every store call's failure that the dialect recognises as such
// (Dialect.unreachable) becomes SERVICE_UNAVAILABLE, which clients may retry or answer offline.
import { DomainError } from '../../domain/errors.js';

/** How long a client is asked to wait before trying again (Retry-After). */
const DATABASE_RETRY_AFTER_SECONDS = 5;

const databaseUnreachable = (cause: unknown): DomainError =>
  new DomainError('SERVICE_UNAVAILABLE', 'the database cannot be reached; try again shortly', { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS }, { cause });

/** `store` with each of its functions' failures that `unreachable` recognises, thrown or rejected,
 * replaced by databaseUnreachable (the driver's error kept as its cause, for the log). */
export function answeringUnreachable<S extends object>(store: S, unreachable: (e: unknown) => boolean): S {
  const translate = (e: unknown): never => {
    throw unreachable(e) ? databaseUnreachable(e) : e;
  };
  const wrapped: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(store)) {
    if (typeof member !== 'function') {
      wrapped[name] = member;
      continue;
    }
    const call = member as (...args: unknown[]) => unknown;
    wrapped[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = call(...args);
      } catch (e) {
        return translate(e);
      }
      return result instanceof Promise ? result.catch(translate) : result;
    };
  }
  return wrapped as S;
}
