// swapCounters' loop: a step whose rows changed since its read is read and decided again, a
// decision with no writes writes nothing, and a refusal thrown by the decision writes nothing.
// serialLanes (serial-lanes.ts): the turns that steps on one row take within a process.
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/adapters/persistence/dialect.js';
import { authIpCounters } from '../../src/adapters/persistence/sqlite/schema.js';
import { serialLanes } from '../../src/adapters/persistence/serial-lanes.js';
import { CountersMoved, swapCounters, type CounterWrite } from '../../src/adapters/persistence/store/counter-swap.js';

/**
 * A dialect whose all-or-none transactions report the rows changed `conflicts` times, then apply:
 * it answers for the transaction's work (CountersMoved, or done) without running it.
 */
function dialect(conflicts: number) {
  /** The all-or-none steps tried, numbered. */
  const steps: number[] = [];
  const d: Pick<Dialect, 'transaction'> = {
    transaction: async <T>() => {
      steps.push(steps.length + 1);
      if (steps.length <= conflicts) throw new CountersMoved();
      return undefined as T;
    },
  };
  return { d, steps };
}

/** The fake dialect never renders it. */
const write: CounterWrite = { table: authIpCounters, key: {}, before: null, after: {} };

describe('swapCounters', () => {
  it('reads and decides again after each lost race, answering from the last decision', async () => {
    const { d, steps } = dialect(2);
    let reads = 0;
    const answer = await swapCounters(
      d,
      async () => ++reads,
      (n) => ({ answer: `decided on read ${n}`, writes: [write] }),
    );
    expect(answer).toBe('decided on read 3');
    expect(steps).toEqual([1, 2, 3]);
  });

  it('writes nothing for a decision without writes', async () => {
    const { d, steps } = dialect(0);
    expect(
      await swapCounters(
        d,
        async () => 0,
        () => ({ answer: 'busy', writes: [] }),
      ),
    ).toBe('busy');
    expect(steps).toEqual([]);
  });

  it('writes nothing when the decision refuses', async () => {
    const { d, steps } = dialect(0);
    await expect(
      swapCounters(
        d,
        async () => 0,
        () => {
          throw new Error('RATE_LIMITED');
        },
      ),
    ).rejects.toThrow('RATE_LIMITED');
    expect(steps).toEqual([]);
  });
});

describe('serialLanes', () => {
  /** A piece of work that records when it starts and ends, and ends when told. */
  function piece(log: string[], name: string) {
    let finish!: (fail: boolean) => void;
    const ended = new Promise<boolean>((resolve) => (finish = resolve));
    const work = async () => {
      log.push(`${name} starts`);
      const fail = await ended;
      log.push(`${name} ends`);
      if (fail) throw new Error(`${name} failed`);
      return name;
    };
    return { work, end: () => finish(false), fail: () => finish(true) };
  }
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('runs work of one key one piece at a time, in call order, and other keys beside it', async () => {
    const inLane = serialLanes();
    const log: string[] = [];
    const [a1, a2, a3, b1] = ['a1', 'a2', 'a3', 'b1'].map((name) => piece(log, name)) as [ReturnType<typeof piece>, ReturnType<typeof piece>, ReturnType<typeof piece>, ReturnType<typeof piece>];
    const runs = [inLane('a', a1.work), inLane('a', a2.work), inLane('a', a3.work), inLane('b', b1.work)];
    await settle();
    expect(log).toEqual(['a1 starts', 'b1 starts']);
    a1.fail();
    await settle();
    // A failed piece hands over like a finished one, and its caller sees its error.
    expect(log).toEqual(['a1 starts', 'b1 starts', 'a1 ends', 'a2 starts']);
    a3.end();
    await settle();
    expect(log).not.toContain('a3 starts');
    a2.end();
    b1.end();
    const outcomes = await Promise.allSettled(runs);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['a1 failed', 'a2', 'a3', 'b1']);
    expect(log.indexOf('a3 starts')).toBeGreaterThan(log.indexOf('a2 ends'));
  });

  it('starts a key afresh once its last piece is done', async () => {
    const inLane = serialLanes();
    expect(await inLane('a', async () => 1)).toBe(1);
    await settle();
    const log: string[] = [];
    const next = piece(log, 'next');
    const run = inLane('a', next.work);
    await settle();
    expect(log).toEqual(['next starts']);
    next.end();
    expect(await run).toBe('next');
  });
});
