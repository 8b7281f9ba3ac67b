import { hash, parseOptions, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../application/ports/password-hasher.js';
import { createFairRunner } from './bounded.js';

export interface Argon2Parameters {
  /** KiB. */
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The floor docs/security.md (Security notes) states: argon2id, m=19456 KiB, t=2, p=1. */
export const defaultArgon2Parameters: Argon2Parameters = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

// Algorithm is a const enum in the typings, which isolated-module builds cannot inline.
const ARGON2ID = 2;

export interface Argon2HasherOptions {
  parameters?: Argon2Parameters;
  /** Hashes running at once, over all lanes. */
  maxConcurrent: number;
  /** Places (requests with password work in progress or waiting) per lane. */
  maxQueuedPerLane: number;
}

export function createArgon2Hasher(options: Argon2HasherOptions): PasswordHasher {
  const parameters = options.parameters ?? defaultArgon2Parameters;
  const runner = createFairRunner({ concurrency: options.maxConcurrent, maxPerLane: options.maxQueuedPerLane });
  const hashOptions = { ...parameters, algorithm: ARGON2ID };
  // Made on first use, not at construction: no async work in a factory.
  let dummy: Promise<string> | null = null;

  return {
    admit(lane) {
      const place = runner.admit(lane);
      if (place === null) return null;
      return {
        hash: (password) => place.run(() => hash(password, hashOptions)),
        verify: (stored, password) =>
          place.run(async () => {
            try {
              return await verify(stored, password);
            } catch {
              // A malformed stored hash verifies nothing; it never becomes a 500.
              return false;
            }
          }),
        async verifyDummy(password) {
          dummy ??= hash('gatehouse-dummy-password', hashOptions);
          const stored = await dummy;
          await place.run(() => verify(stored, password).catch(() => false));
        },
        done: () => place.done(),
      };
    },
    load: () => runner.load(),
    needsRehash(stored) {
      try {
        const p = parseOptions(stored);
        return (p.algorithm as number) !== ARGON2ID || p.memoryCost < parameters.memoryCost || p.timeCost < parameters.timeCost || p.parallelism < parameters.parallelism;
      } catch {
        return true;
      }
    },
  };
}
