// Answers made in one turn of the event loop are written together at its end
// (src/adapters/http/answers-per-turn.ts; docs/performance.md, "Answers written per turn").
import { AsyncLocalStorage } from 'node:async_hooks';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { answersPerTurn } from '../../src/adapters/http/answers-per-turn.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A server with the plugin whose route answers `{ n }` and logs when it answers and writes. */
function serverLogging(log: string[]): FastifyInstance {
  const server = Fastify({ logger: false });
  server.addHook('onRequest', (request, reply, done) => {
    const n = (request.query as { n: string }).n;
    const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown;
    reply.raw.end = ((...args: unknown[]) => {
      log.push(`written ${n}`);
      return end(...args);
    }) as typeof reply.raw.end;
    done();
  });
  answersPerTurn(server);
  // Answered at once, as a handler that reads nothing asynchronously does.
  server.get('/', (request, reply) => {
    const n = (request.query as { n: string }).n;
    log.push(`answered ${n}`);
    void reply.send({ n });
  });
  return server;
}

describe('answers per turn', () => {
  it('writes the answers of one turn after every one of them was made, each with its own body', async () => {
    const log: string[] = [];
    app = serverLogging(log);
    await app.ready();
    const answers = await Promise.all(['1', '2', '3'].map((n) => app!.inject({ method: 'GET', url: `/?n=${n}` })));
    expect(answers.map((a) => [a.statusCode, a.json()])).toEqual([
      [200, { n: '1' }],
      [200, { n: '2' }],
      [200, { n: '3' }],
    ]);
    expect(log.slice(0, 3).every((line) => line.startsWith('answered'))).toBe(true);
    expect(log.slice(3).sort()).toEqual(['written 1', 'written 2', 'written 3']);
  });

  it('answers requests of later turns too (nothing is held once its turn is over)', async () => {
    const log: string[] = [];
    app = serverLogging(log);
    await app.ready();
    for (const n of ['1', '2', '3']) {
      const answer = await app.inject({ method: 'GET', url: `/?n=${n}` });
      expect(answer.json()).toEqual({ n });
    }
    expect(log).toEqual(['answered 1', 'written 1', 'answered 2', 'written 2', 'answered 3', 'written 3']);
  });

  it("runs the held answers' later hooks outside any request's async context, never in another request's", async () => {
    const scope = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    app = Fastify({ logger: false });
    app.addHook('onRequest', (request, _reply, done) => scope.run((request.query as { n: string }).n, done));
    answersPerTurn(app);
    app.addHook('onSend', (_request, _reply, payload, done) => {
      seen.push(scope.getStore());
      done(null, payload);
    });
    app.get('/', async () => ({ ok: true }));
    await app.ready();
    await Promise.all(['1', '2', '3'].map((n) => app!.inject({ method: 'GET', url: `/?n=${n}` })));
    expect(seen).toEqual([undefined, undefined, undefined]);
  });

  it('a later hook failing for one answer fails only that answer', async () => {
    app = Fastify({ logger: false });
    answersPerTurn(app);
    app.addHook('onSend', (request, _reply, payload, done) => {
      if ((request.query as { n: string }).n === '2') done(new Error('this one fails'));
      else done(null, payload);
    });
    app.get('/', async (request) => ({ n: (request.query as { n: string }).n }));
    await app.ready();
    const answers = await Promise.all(['1', '2', '3'].map((n) => app!.inject({ method: 'GET', url: `/?n=${n}` })));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 500, 200]);
    expect(answers[0]!.json()).toEqual({ n: '1' });
    expect(answers[2]!.json()).toEqual({ n: '3' });
  });
});

describe('answers per turn: a handler that sends without returning the reply', () => {
  it('answers once: the second send Fastify makes for it is dropped before any later hook', async () => {
    let laterHooks = 0;
    app = Fastify({ logger: false });
    answersPerTurn(app);
    app.addHook('onSend', (_request, _reply, payload, done) => {
      laterHooks += 1;
      done(null, payload);
    });
    app.get('/', async (_request, reply) => {
      void reply.send({ once: true });
    });
    await app.ready();
    const answer = await app.inject({ method: 'GET', url: '/' });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ once: true });
    expect(laterHooks).toBe(1);
  });
});
