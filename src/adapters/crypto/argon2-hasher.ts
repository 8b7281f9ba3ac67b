import { hash, parseOptions, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../application/ports.js';
import { createBoundedRunner } from './bounded.js';

export interface Argon2Parameters {
  /** KiB. */
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The floor of decisions.md: argon2id, m=19456 KiB, t=2, p=1. */
export const defaultArgon2Parameters: Argon2Parameters = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

// Algorithm is a const enum in the typings, which isolated-module builds cannot inline.
const ARGON2ID = 2;

export function createArgon2Hasher(options: { parameters?: Argon2Parameters; maxConcurrent: number }): PasswordHasher {
  const parameters = options.parameters ?? defaultArgon2Parameters;
  const run = createBoundedRunner(options.maxConcurrent);
  const hashOptions = { ...parameters, algorithm: ARGON2ID };
  // Made on first use, not at construction: no async work in a factory.
  let dummy: Promise<string> | null = null;

  return {
    hash: (password) => run(() => hash(password, hashOptions)),
    verify: (stored, password) =>
      run(async () => {
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
      await run(() => verify(stored, password).catch(() => false));
    },
    needsRehash(stored) {
      try {
        const p = parseOptions(stored);
        return (
          (p.algorithm as number) !== ARGON2ID ||
          p.memoryCost < parameters.memoryCost ||
          p.timeCost < parameters.timeCost ||
          p.parallelism < parameters.parallelism
        );
      } catch {
        return true;
      }
    },
  };
}
