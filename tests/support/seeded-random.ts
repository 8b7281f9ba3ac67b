// Reproducible randomness for tests: the same seed gives the same numbers and bytes on every run,
// so a failure can be replayed (house rule: tests seed their randomness).
import { createCipheriv, createHash } from 'node:crypto';

export interface SeededRandom {
  /** A whole number from 0 to max - 1. */
  int(max: number): number;
  /** `size` bytes (AES-256-CTR keystream under a key drawn from the seed: fast for many MiB). */
  bytes(size: number): Buffer;
}

export function seededRandom(seed: string): SeededRandom {
  // mulberry32 over a 32-bit state taken from the seed.
  let state = createHash('sha256').update(seed).digest().readUInt32BE(0);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let streams = 0;
  return {
    int: (max) => Math.floor(next() * max),
    bytes(size) {
      const key = createHash('sha256').update(`${seed}:bytes:${streams++}`).digest();
      return createCipheriv('aes-256-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(size));
    },
  };
}
