// GET /api/console/setup: the signed-out dashboard learns whether any owner exists (to show how to
// create the first one), and nothing else: no email, no count, whatever the caller sends.
import { afterEach, describe, expect, it } from 'vitest';
import { createOwner } from '../../src/application/console/owners.js';
import { type TestApp, startTestApp } from '../support/test-app.js';

let t: TestApp | undefined;
afterEach(() => t?.close());

const setup = (app: TestApp, extra: { headers?: Record<string, string>; query?: string } = {}) =>
  app.inject({ method: 'GET', url: `/api/console/setup${extra.query ?? ''}`, headers: extra.headers ?? {} });

describe('GET /api/console/setup', () => {
  it('answers owner_exists false on a fresh install, true once the first owner is created, without signing in', async () => {
    t = await startTestApp({ withoutOwner: true });
    const before = await setup(t);
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ owner_exists: false });
    expect(before.headers['cache-control']).toBe('no-store');
    expect(before.headers['set-cookie']).toBeUndefined();

    await createOwner(t.deps, 'first@example.com', 'first-password-1');
    const after = await setup(t);
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ owner_exists: true });
  });

  it('tells a stranger that one bit and nothing more, whatever they send', async () => {
    t = await startTestApp();
    await createOwner(t.deps, 'second@example.com', 'second-password-1');
    const probes: Array<{ headers?: Record<string, string>; query?: string }> = [
      {},
      { query: '?email=owner@example.com' },
      { query: '?owner_exists=false&verbose=1' },
      { headers: { authorization: 'Bearer gh_con_not-a-real-token' } },
      { headers: { authorization: `Bearer ${t.ownerToken}` } },
      { headers: { cookie: 'gh_console=forged', origin: 'https://evil.example' } },
    ];
    for (const probe of probes) {
      const res = await setup(t, probe);
      expect(res.statusCode).toBe(200);
      // The very bytes: no email, no id, no count of owners.
      expect(res.body).toBe('{"owner_exists":true}');
      expect(res.body).not.toContain('example.com');
    }
  });

  it('changes nothing: other methods are not routes', async () => {
    t = await startTestApp({ withoutOwner: true });
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await t.inject({ method, url: '/api/console/setup', payload: { owner_exists: true } });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }
    expect((await setup(t)).json()).toEqual({ owner_exists: false });
  });
});
