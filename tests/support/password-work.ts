// Watching or holding back the password work of a test app (argon2 calls), per lane.
import type { Deps } from '../../src/application/deps.js';
import type { PasswordWork } from '../../src/application/ports/password-hasher.js';

/** Replaces the app's hasher with one whose admitted work goes through `wrap`. */
export function wrapPasswordWork(deps: Deps, wrap: (work: PasswordWork, lane: string) => PasswordWork): void {
  const real = deps.hasher;
  deps.hasher = {
    ...real,
    admit(lane) {
      const work = real.admit(lane);
      return work === null ? null : wrap(work, lane);
    },
  };
}
