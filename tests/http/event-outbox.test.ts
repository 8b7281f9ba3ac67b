import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { call, type TestApplication } from '../support/integration.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
});
afterEach(() => t.close());

describe('the event outbox', () => {
  it('a sign-up writes user.created with the end user as actor and the caller address', async () => {
    const res = await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' }, { ip: '10.9.8.7' });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    const [event] = await t.store.listEvents(app.id, { action: 'user.created' }, { limit: 10 });
    expect(event).toMatchObject({
      action: 'user.created',
      actor: { type: 'end_user', id, ip: '10.9.8.7' },
      target: { type: 'user', id, label: 'alice' },
      data: { user: { id, username: 'alice' }, source: 'sign_up' },
      outcome: 'success',
    });
    expect(JSON.stringify(event)).not.toContain('argon2');
  });

  it('a refused sign-up (taken name) writes no event', async () => {
    await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' });
    expect((await call(t, app, 'POST', '/sign_up', { username: 'ALICE', password: 'password123' })).statusCode).toBe(422);
    expect(await t.store.listEvents(app.id, { action: 'user.created' }, { limit: 10 })).toHaveLength(1);
  });
});
