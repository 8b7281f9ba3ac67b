// The memory behind remembered access (src/adapters/persistence/fast/remembered-by-version.ts): an
// answer stands only for the versions it was read with, only while it is young enough that an
// xmin cannot have come round again, and the least recently used goes first.
import { describe, expect, it } from 'vitest';
import { REMEMBERED_MAX_AGE_MS, rememberedByVersion } from '../../src/adapters/persistence/fast/remembered-by-version.js';

describe('rememberedByVersion', () => {
  it('answers only for the versions an answer was read with', () => {
    const memory = rememberedByVersion<string>(10, 1_000, () => 0);
    expect(memory.has('k')).toBe(false);
    memory.set('k', '1/2/3', 'answer');
    expect(memory.has('k')).toBe(true);
    expect(memory.get('k', '1/2/3')).toBe('answer');
    for (const changed of ['9/2/3', '1/9/3', '1/2/9', '1/2/-', '']) expect(memory.get('k', changed)).toBeUndefined();
    // A newer read replaces it.
    memory.set('k', '1/2/4', 'newer');
    expect(memory.get('k', '1/2/3')).toBeUndefined();
    expect(memory.get('k', '1/2/4')).toBe('newer');
  });

  it('trusts an answer no longer than its age bound, whatever its versions', () => {
    let now = 0;
    const memory = rememberedByVersion<string>(10, REMEMBERED_MAX_AGE_MS, () => now);
    memory.set('k', 'v', 'answer');
    now = REMEMBERED_MAX_AGE_MS;
    expect(memory.get('k', 'v')).toBe('answer');
    now = REMEMBERED_MAX_AGE_MS + 1;
    expect(memory.get('k', 'v')).toBeUndefined();
    // Read again, it is trusted anew.
    memory.set('k', 'v', 'again');
    expect(memory.get('k', 'v')).toBe('again');
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const memory = rememberedByVersion<number>(2, 1_000, () => 0);
    memory.set('a', 'v', 1);
    memory.set('b', 'v', 2);
    expect(memory.get('a', 'v')).toBe(1);
    memory.set('c', 'v', 3);
    expect([memory.has('a'), memory.has('b'), memory.has('c')]).toEqual([true, false, true]);
  });
});
