// Webhook limits (issue 39, item 21; docs/api.md, Webhooks, "Limits"): an application has at most
// 20 endpoints and sends at most 10 test events a minute, also when the requests race, and the
// refusals are clear 4xx answers that record nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';

const URL_ = 'https://93.184.216.34/hook';

describe('webhook limits', () => {
  let t: TestApp;
  let app: TestApplication;
  beforeEach(async () => {
    t = await startTestApp();
    app = await createApplication(t, { device_auth: false });
  });
  afterEach(() => t.close());

  const create = () => consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: URL_, events: ['*'] });
  const list = async () => (await consoleRequest(t, 'GET', `/applications/${app.id}/webhooks`)).json<Array<{ id: string }>>();

  it('refuses a 21st endpoint with 409 WEBHOOK_LIMIT_REACHED, and takes one again after a delete', async () => {
    for (let i = 0; i < 20; i++) expect((await create()).statusCode).toBe(201);
    const refused = await create();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error_code: 'WEBHOOK_LIMIT_REACHED', message: expect.stringContaining('at most 20 webhook endpoints') });
    expect(await list()).toHaveLength(20);
    const [first] = await list();
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/webhooks/${first!.id}`)).statusCode).toBe(204);
    expect((await create()).statusCode).toBe(201);
    // The cap is the application's: another application starts from none.
    const other = await createApplication(t, { device_auth: false });
    expect((await consoleRequest(t, 'POST', `/applications/${other.id}/webhooks`, { url: URL_, events: ['*'] })).statusCode).toBe(201);
  });

  it('holds the cap when 30 creations race', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => create()));
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(20);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(10);
    expect(await list()).toHaveLength(20);
  });

  it('refuses an 11th test send in a minute with 429 WEBHOOK_TEST_LIMITED and Retry-After, racing or not', async () => {
    const id = (await create()).json().endpoint.id as string;
    const test = () => consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${id}/test`);
    const answers = await Promise.all(Array.from({ length: 15 }, () => test()));
    expect(answers.filter((a) => a.statusCode === 204)).toHaveLength(10);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.json().error_code).toBe('WEBHOOK_TEST_LIMITED');
    expect(refused[0]!.headers['retry-after']).toBe('60');
    // Nothing was recorded for the refused sends.
    const audit = await consoleRequest(t, 'GET', `/applications/${app.id}/audit?action=webhook.test`);
    expect(audit.json().entries).toHaveLength(10);

    t.clock.advance(59_000);
    const still = await test();
    expect(still.statusCode).toBe(429);
    expect(still.headers['retry-after']).toBe('1');
    t.clock.advance(1_000);
    expect((await test()).statusCode).toBe(204);
  });
});
