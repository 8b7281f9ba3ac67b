// The client's address is request state (request-state.ts): parsed once per request, however often
// the actor, request signing and the route ask for it, and a forwarded value that is no address is
// refused with 400 MALFORMED_REQUEST each time it is asked for.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/adapters/http/errors.js';
import { callerOf } from '../../src/adapters/http/request-parts.js';
import { declareRequestState } from '../../src/adapters/http/request-state.js';
import { expectError } from '../support/integration.js';

const proxy = '10.70.0.1';

let app: FastifyInstance;
afterEach(() => app.close());

async function appAskingTwice() {
  app = Fastify({ trustProxy: [proxy] });
  declareRequestState(app);
  registerErrorHandling(app);
  app.get('/caller', async (request) => {
    const unasked = request.caller;
    const first = callerOf(request);
    // Each parse makes a new frozen caller: the same object every time is one parse.
    return { unasked: unasked === undefined, ip: first.ip, same: callerOf(request) === first && request.caller === first };
  });
  app.get('/refused', async (request) => {
    try {
      callerOf(request);
    } catch {
      // Kept with the request (null), and given again below.
    }
    if (request.caller !== null) throw new Error('the refusal was not kept with the request');
    return callerOf(request);
  });
  await app.ready();
  return app;
}

const from = (forwarded: string) => ({ remoteAddress: proxy, headers: { 'x-forwarded-for': forwarded } });

it('parses the client address once per request, on first asking', async () => {
  await appAskingTwice();
  const res = await app.inject({ method: 'GET', url: '/caller', ...from('[::ffff:1.2.3.4]:443') });
  expect(res.json()).toEqual({ unasked: true, ip: '1.2.3.4', same: true });
  // Each request its own: a second one from elsewhere on the same app is not the first's.
  expect((await app.inject({ method: 'GET', url: '/caller', ...from('2001:0DB8::1') })).json()).toMatchObject({ ip: '2001:db8::1', same: true });
});

it('refuses a forwarded value that is no address with 400 MALFORMED_REQUEST, every time it is asked for', async () => {
  await appAskingTwice();
  for (const junk of ['unknown', '1.2.3.400', 'example.com']) {
    expectError(await app.inject({ method: 'GET', url: '/caller', ...from(junk) }), 400, 'MALFORMED_REQUEST');
    expectError(await app.inject({ method: 'GET', url: '/refused', ...from(junk) }), 400, 'MALFORMED_REQUEST');
  }
});
