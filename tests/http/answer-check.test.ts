// Every answer is held to its route's declared schema in the test harness (answer-check.ts):
// a view that drifts from its schema fails the request that shows it, instead of Fastify's
// serialiser silently dropping or coercing fields.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { afterEach, expect, it } from 'vitest';
import { answers } from '../../src/adapters/http/answers.js';
import { checkAnswers } from '../../src/adapters/http/answer-check.js';
import { registerErrorHandling } from '../../src/adapters/http/errors.js';

const Thing = Type.Object({ name: Type.String(), count: Type.Integer() }, { additionalProperties: false });

let app: FastifyInstance;
afterEach(() => app.close());

async function appAnswering(body: unknown, status = 200) {
  const typed = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  app = typed;
  registerErrorHandling(app);
  checkAnswers(app);
  typed.get('/declared', { schema: { response: answers({ 200: Thing }) } }, async (_request, reply) => reply.code(status).send(body as never));
  typed.get('/undeclared', async () => body);
  // A route that answers JSON text it made itself (config.serialised), as app_context does.
  typed.get('/text', { schema: { response: answers({ 200: Thing }) }, config: { serialised: true } }, async (_request, reply) =>
    reply
      .code(status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(body) as never),
  );
  await app.ready();
  return app;
}

const silenced = <T>(run: () => Promise<T>) => {
  const write = process.stderr.write;
  process.stderr.write = () => true;
  return run().finally(() => (process.stderr.write = write));
};

it('passes an answer that matches its schema', async () => {
  const res = await (await appAnswering({ name: 'a', count: 1 })).inject({ method: 'GET', url: '/declared' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ name: 'a', count: 1 });
});

it.each([
  ['a field of the wrong type', { name: 'a', count: 'one' }],
  ['a missing field', { name: 'a' }],
  ['a field the schema does not declare (the serialiser would drop it)', { name: 'a', count: 1, renamed: true }],
])('fails the request on %s', async (_what, body) => {
  const res = await silenced(async () => (await appAnswering(body)).inject({ method: 'GET', url: '/declared' }));
  expect(res.statusCode).toBe(500);
  expect(res.json()).toMatchObject({ error_code: 'INTERNAL_ERROR' });
});

it('fails an error answer that is not the error body', async () => {
  const res = await silenced(async () => (await appAnswering({ oops: true }, 404)).inject({ method: 'GET', url: '/declared' }));
  expect(res.statusCode).toBe(500);
});

it('fails an error whose code the route does not list (the OpenAPI document would not show it)', async () => {
  const unlisted = { error_code: 'USER_NOT_FOUND', message: 'no such user', detail: 'no such user' };
  const res = await silenced(async () => (await appAnswering(unlisted, 404)).inject({ method: 'GET', url: '/declared' }));
  expect(res.statusCode).toBe(500);
});

it('passes an error whose code every endpoint lists', async () => {
  const listed = { error_code: 'VALIDATION_FAILED', message: 'bad', detail: 'bad' };
  expect((await (await appAnswering(listed, 422)).inject({ method: 'GET', url: '/declared' })).statusCode).toBe(422);
});

it('fails a route that declares no schema for its answer', async () => {
  const res = await silenced(async () => (await appAnswering({ name: 'a', count: 1 })).inject({ method: 'GET', url: '/undeclared' }));
  expect(res.statusCode).toBe(500);
});

it('holds JSON text a route serialised itself to the schema too', async () => {
  expect((await (await appAnswering({ name: 'a', count: 1 })).inject({ method: 'GET', url: '/text' })).json()).toEqual({ name: 'a', count: 1 });
  const res = await silenced(async () => (await appAnswering({ name: 'a', count: 1, renamed: true })).inject({ method: 'GET', url: '/text' }));
  expect(res.statusCode).toBe(500);
});
