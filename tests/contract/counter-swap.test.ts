// swapCounters' loop: a step whose rows changed since its read is read and decided again, a
// decision with no writes writes nothing, and a refusal thrown by the decision writes nothing.
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/adapters/persistence/dialect.js';
import { swapCounters, type CounterWrite } from '../../src/adapters/persistence/store/counter-swap.js';

/** A dialect whose all-or-none steps report the rows changed `conflicts` times, then apply. */
function dialect(conflicts: number) {
  /** The all-or-none steps tried, numbered. */
  const steps: number[] = [];
  const d: Pick<Dialect, 'allOrNone'> = {
    allOrNone: async () => {
      steps.push(steps.length + 1);
      return steps.length > conflicts;
    },
  };
  return { d, steps };
}

/** The fake dialect never renders it. */
const write = { table: null, key: {}, before: null, after: {} } as unknown as CounterWrite;

describe('swapCounters', () => {
  it('reads and decides again after each lost race, answering from the last decision', async () => {
    const { d, steps } = dialect(2);
    let reads = 0;
    const answer = await swapCounters(d, async () => ++reads, (n) => ({ answer: `decided on read ${n}`, writes: [write] }));
    expect(answer).toBe('decided on read 3');
    expect(steps).toEqual([1, 2, 3]);
  });

  it('writes nothing for a decision without writes', async () => {
    const { d, steps } = dialect(0);
    expect(await swapCounters(d, async () => 0, () => ({ answer: 'busy', writes: [] }))).toBe('busy');
    expect(steps).toEqual([]);
  });

  it('writes nothing when the decision refuses', async () => {
    const { d, steps } = dialect(0);
    await expect(swapCounters(d, async () => 0, () => { throw new Error('RATE_LIMITED'); })).rejects.toThrow('RATE_LIMITED');
    expect(steps).toEqual([]);
  });
});
