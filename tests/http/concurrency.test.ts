import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, createLicenses, startTestApp, type TestApp } from '../support/test-app.js';
import { call, login, member, signUp } from '../support/integration.js';
import { wrapPasswordWork } from '../support/password-work.js';

let t: TestApp;
beforeEach(async () => {
  // Races, not the password queue's bound, are what these tests look at: every request gets a place.
  t = await startTestApp({ passwordQueue: 1000 });
});
afterEach(() => t.close());

const statuses = (responses: Array<{ statusCode: number }>) => responses.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.statusCode]: (acc[r.statusCode] ?? 0) + 1 }), {});

describe('under parallel requests', () => {
  it('50 parallel activations of one license code by 50 users: exactly one succeeds', async () => {
    const app = await createApplication(t, { device_auth: false });
    const names = Array.from({ length: 50 }, (_, i) => `user${i}`);
    for (const n of names) await signUp(t, app, n, 'password123');
    const [code] = await createLicenses(t, app.id, 1, 60);
    const results = await Promise.all(names.map((n) => call(t, app, 'POST', '/activate_license', { code, username: n, password: 'password123' })));
    expect(statuses(results)).toEqual({ 200: 1, 401: 49 });
    expect(results.filter((r) => r.statusCode === 401).every((r) => r.json().error_code === 'LICENSE_USED')).toBe(true);
    const used = await consoleRequest(t, 'GET', `/applications/${app.id}/licenses?status=used`);
    expect(used.json()).toHaveLength(1);
  });

  it('the device cap holds under 40 parallel logins from 40 devices', async () => {
    const app = await createApplication(t, { device_auth: true, default_allowed_devices: 3, default_allowed_sessions: 100 });
    const u = await member(t, app, 'alice', undefined, 60, { hardware_id: 'HW-0' });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => login(t, app, { username: 'alice', password: u.password }, { hardware_id: `HW-${i + 1}` })));
    // HW-0 is registered already: two more devices fit.
    expect(statuses(results)).toEqual({ 200: 2, 401: 38 });
    const detail = await consoleRequest(t, 'GET', `/applications/${app.id}/users/${u.id}`);
    expect(detail.json().registered_devices).toHaveLength(3);
  });

  it('the simultaneous-session cap holds under 40 parallel logins', async () => {
    const app = await createApplication(t, { device_auth: false, default_allowed_sessions: 5 });
    const u = await member(t, app, 'bob');
    const results = await Promise.all(Array.from({ length: 40 }, () => login(t, app, { username: 'bob', password: u.password })));
    expect(statuses(results)).toEqual({ 200: 5, 401: 35 });
    expect(results.filter((r) => r.statusCode === 401).every((r) => r.json().error_code === 'SESSION_LIMIT_REACHED')).toBe(true);
  });

  it('50 parallel wrong passwords at an account with threshold 10 verify at most 10 passwords', async () => {
    const app = await createApplication(t, { device_auth: false });
    await member(t, app, 'carol');
    let verifications = 0;
    wrapPasswordWork(t.deps, (work) => ({
      ...work,
      verify: (hash, password) => {
        verifications += 1;
        return work.verify(hash, password);
      },
    }));
    const results = await Promise.all(Array.from({ length: 50 }, () => login(t, app, { username: 'carol', password: 'wrong password' })));
    expect(verifications).toBeLessThanOrEqual(10);
    expect(verifications).toBeGreaterThan(0);
    expect(statuses(results)).toEqual({ 401: verifications, 429: 50 - verifications });
    const locked = results.find((r) => r.statusCode === 429);
    expect(locked?.json().error_code).toBe('ACCOUNT_LOCKED');
    expect(Number(locked?.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('past the per-IP failure limit, auth requests from that address answer 429 RATE_LIMITED with Retry-After', async () => {
    await t.close();
    t = await startTestApp({ passwordQueue: 1000, limits: { ipFailureLimit: 20, lockoutThreshold: 1000 } });
    const app = await createApplication(t, { device_auth: false });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => login(t, app, { username: `guess${i}`, password: 'wrong password' }, {}, { ip: '10.7.7.7' })));
    expect(statuses(results)).toEqual({ 401: 20, 429: 10 });
    const limited = results.find((r) => r.statusCode === 429);
    expect(limited?.json().error_code).toBe('RATE_LIMITED');
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await login(t, app, { username: 'guess0', password: 'wrong password' }, {}, { ip: '10.8.8.8' })).statusCode).toBe(401);
  });
});

describe('license guesses at activation', () => {
  it('lock the guessing account after the threshold, and only that account', async () => {
    await t.close();
    t = await startTestApp({ passwordQueue: 1000, limits: { lockoutThreshold: 3, ipFailureLimit: 1000 } });
    const app = await createApplication(t, { device_auth: false });
    await signUp(t, app, 'guesser', 'password123');
    await signUp(t, app, 'bystander', 'password123');
    const guess = (username: string, code: string) => call(t, app, 'POST', '/activate_license', { code, username, password: 'password123' });
    const wrong = 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA';
    for (let i = 0; i < 3; i++) expect((await guess('guesser', wrong)).json().error_code).toBe('LICENSE_INVALID');
    const locked = await guess('guesser', wrong);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error_code).toBe('ACCOUNT_LOCKED');
    // The correct password alone does not unlock code guessing, and the bystander is unaffected.
    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await guess('guesser', code as string)).statusCode).toBe(429);
    expect((await guess('bystander', code as string)).statusCode).toBe(200);
  });
});
