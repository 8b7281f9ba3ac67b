import { DomainError } from '../domain/errors.js';
import type { Deps } from './deps.js';
import type { PasswordWork } from './ports/password-hasher.js';

/** Runs `fn` holding a place in `lane`'s queue of password work (docs/security.md, "Password work
 * queue"). Taken before anything is counted against the caller: a full queue refuses the request
 * with 429 PASSWORD_QUEUE_FULL and Retry-After, and counts no failed check. */
export async function withPasswordWork<T>(deps: Pick<Deps, 'hasher'>, lane: string, fn: (work: PasswordWork) => Promise<T>): Promise<T> {
  const work = deps.hasher.admit(lane);
  if (work === null) {
    throw new DomainError('PASSWORD_QUEUE_FULL', 'too many password checks are waiting here; try again shortly', { retryAfterSeconds: 1 });
  }
  try {
    return await fn(work);
  } finally {
    work.done();
  }
}
