// startSupervisedWorker: messages reach the owner, and however the worker stops (an uncaught
// error, an exit of its own, a terminate), the owner hears it once, as an error naming the worker,
// its exit code and what it threw.
import { describe, expect, it } from 'vitest';
import { startSupervisedWorker } from '../../src/adapters/crypto/supervised-worker.js';

function run(source: string) {
  const messages: unknown[] = [];
  const stops: Error[] = [];
  let resolveStopped: (error: Error) => void = () => {};
  const stopped = new Promise<Error>((resolve) => (resolveStopped = resolve));
  const worker = startSupervisedWorker<unknown>(source, 'test', {
    message: (m) => messages.push(m),
    stopped(error) {
      stops.push(error);
      resolveStopped(error);
    },
  });
  return { worker, messages, stops, stopped };
}

describe('startSupervisedWorker', () => {
  it('passes messages on, and reports an exit of its own with its code', async () => {
    const { worker, messages, stops, stopped } = run(`
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (m) => (m === 'exit' ? process.exit(3) : parentPort.postMessage({ echo: m })));
    `);
    worker.postMessage(1);
    worker.postMessage(2);
    // The worker answers in order; once the second echo is in, it is told to exit.
    await new Promise<void>((resolve) => worker.on('message', () => messages.length === 2 && resolve()));
    worker.postMessage('exit');
    const error = await stopped;
    expect(messages).toEqual([{ echo: 1 }, { echo: 2 }]);
    expect(error.message).toBe('the test worker stopped (exit code 3)');
    expect(error.cause).toBeUndefined();
    expect(stops).toHaveLength(1);
  });

  it('reports an uncaught error as the cause of the stop', async () => {
    const { stops, stopped } = run(`throw new Error('boom in the worker');`);
    const error = await stopped;
    expect(error.message).toBe('the test worker stopped (exit code 1)');
    expect((error.cause as Error).message).toBe('boom in the worker');
    expect(stops).toHaveLength(1);
  });

  it('reports a terminate by its owner once', async () => {
    const { worker, stops, stopped } = run(`setInterval(() => {}, 1000);`);
    await worker.terminate();
    const error = await stopped;
    expect(error.message).toMatch(/^the test worker stopped \(exit code \d+\)$/);
    expect(stops).toHaveLength(1);
  });
});
