// The argon2 queue: bounded per lane (one lane per application), and fair between lanes, so a
// flood on one application neither grows without bound nor delays another application's checks.
import { describe, expect, it } from 'vitest';
import { createFairRunner, type LaneAdmission } from '../../src/adapters/crypto/bounded.js';

/** A task that starts when run and ends when the test says so; records the order of starts. */
function gatedTasks() {
  const started: string[] = [];
  const gates: Array<() => void> = [];
  let running = 0;
  let mostAtOnce = 0;
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      gates.push(() => {
        running -= 1;
        resolve(name);
      });
    });
  /** Ends the oldest running task and lets the runner start the next one (all promise jobs run before an immediate). */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const finishOne = async () => {
    gates.shift()?.();
    await settle();
  };
  return { started, task, finishOne, settle, mostAtOnce: () => mostAtOnce };
}

const admitted = (a: LaneAdmission | null): LaneAdmission => {
  if (a === null) throw new Error('expected a place in the queue');
  return a;
};

describe('the bound per lane', () => {
  it('refuses a place past maxPerLane in that lane only, and takes one again once a place is given back', () => {
    const runner = createFairRunner({ concurrency: 2, maxPerLane: 3 });
    const places = [runner.admit('app-a'), runner.admit('app-a'), runner.admit('app-a')].map(admitted);
    expect(runner.admit('app-a')).toBeNull();
    expect(runner.admit('app-b')).not.toBeNull();
    places[0]?.done();
    // Giving the same place back twice frees one place, not two.
    places[0]?.done();
    expect(runner.admit('app-a')).not.toBeNull();
    expect(runner.admit('app-a')).toBeNull();
  });

  it('never runs more than `concurrency` tasks at once, and a failing task gives its turn back', async () => {
    const runner = createFairRunner({ concurrency: 2, maxPerLane: 100 });
    const g = gatedTasks();
    const place = admitted(runner.admit('app-a'));
    const failing = place.run(() => Promise.reject(new Error('boom')));
    await expect(failing).rejects.toThrow('boom');
    const all = Array.from({ length: 6 }, (_, i) => place.run(g.task(`t${i}`)));
    await g.settle();
    for (let i = 0; i < 6; i += 1) await g.finishOne();
    expect(await Promise.all(all)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(g.mostAtOnce()).toBe(2);
  });
});

describe('fairness between lanes', () => {
  it("a flood queued in one lane delays another lane's task by at most one of its tasks besides the one running", async () => {
    const runner = createFairRunner({ concurrency: 1, maxPerLane: 100 });
    const g = gatedTasks();
    const flood = admitted(runner.admit('app-a'));
    const floodDone = Array.from({ length: 50 }, (_, i) => flood.run(g.task(`a${i}`)));
    await g.settle();
    await g.finishOne();
    await g.finishOne();
    // a0 and a1 have run, a2 is running, 47 more of app-a wait. Now app-b asks for one check.
    const other = admitted(runner.admit('app-b'));
    const otherDone = other.run(g.task('b0'));
    await g.settle();
    await g.finishOne();
    await g.finishOne();
    // Not behind the 47: app-a's turn came first, then app-b's.
    expect(g.started).toEqual(['a0', 'a1', 'a2', 'a3', 'b0']);
    await g.finishOne();
    expect(await otherDone).toBe('b0');
    for (let i = 0; i < 46; i += 1) await g.finishOne();
    expect((await Promise.all(floodDone)).length).toBe(50);
  });

  it('busy lanes take turns', async () => {
    const runner = createFairRunner({ concurrency: 1, maxPerLane: 100 });
    const g = gatedTasks();
    const a = admitted(runner.admit('app-a'));
    const b = admitted(runner.admit('app-b'));
    const c = admitted(runner.admit('app-c'));
    const all = [
      ...Array.from({ length: 4 }, (_, i) => a.run(g.task(`a${i}`))),
      ...Array.from({ length: 2 }, (_, i) => b.run(g.task(`b${i}`))),
      ...Array.from({ length: 2 }, (_, i) => c.run(g.task(`c${i}`))),
    ];
    await g.settle();
    for (let i = 0; i < 8; i += 1) await g.finishOne();
    await Promise.all(all);
    expect(g.started).toEqual(['a0', 'a1', 'b0', 'c0', 'a2', 'b1', 'c1', 'a3']);
  });
});

describe('load (the metrics read it)', () => {
  it('counts running tasks and the waiting ones of every lane', async () => {
    const runner = createFairRunner({ concurrency: 1, maxPerLane: 10 });
    const { task, finishOne, settle } = gatedTasks();
    expect(runner.load()).toEqual({ running: 0, waiting: 0 });
    const a = admitted(runner.admit('app-a'));
    const b = admitted(runner.admit('app-b'));
    const runs = [a.run(task('a1')), a.run(task('a2')), b.run(task('b1'))];
    await settle();
    expect(runner.load()).toEqual({ running: 1, waiting: 2 });
    await finishOne();
    expect(runner.load()).toEqual({ running: 1, waiting: 1 });
    await finishOne();
    await finishOne();
    await Promise.all(runs);
    expect(runner.load()).toEqual({ running: 0, waiting: 0 });
  });
});
