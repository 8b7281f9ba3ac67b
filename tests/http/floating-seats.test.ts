// Floating seats, as a crowd of holders and an attacker would try them (docs/machines.md, "Floating
// seats"; docs/api.md, POST /borrow, POST /return, SEATS_EXHAUSTED). Runs on both backends.
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pinnedEd25519Keys } from '../../src/signing/ed25519.js';
import { verifyLicenseFile } from '../../src/signing/license-file.js';
import { LEGACY_SESSION_HOLD_MS } from '../../src/domain/sessions.js';
import { bearer, call, expectError, login, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';

const HEARTBEAT_SECONDS = 60;
const LEASE_MS = 2 * HEARTBEAT_SECONDS * 1000;

let t: TestApp;
let app: TestApplication & { id: string };
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 2, session_ttl_seconds: 3600, heartbeat_seconds: HEARTBEAT_SECONDS });
});
afterEach(() => t.close());

async function floatingCode(target: TestApplication, seats: number, maxBorrowMinutes = 0, floating = true): Promise<string> {
  const plan = await consoleRequest(t, 'POST', `/applications/${target.id}/plans`, {
    name: `Floating ${seats} ${maxBorrowMinutes} ${String(floating)}`,
    kind: 'base',
    duration_minutes: 60 * 24 * 30,
    seats,
    floating,
    max_borrow_minutes: maxBorrowMinutes,
  });
  expect(plan.statusCode, plan.body).toBe(201);
  const made = await consoleRequest(t, 'POST', `/applications/${target.id}/licenses`, { count: 1, plan_id: plan.json<{ id: string }>().id });
  expect(made.statusCode, made.body).toBe(201);
  return made.json<{ licenses: Array<{ code: string }> }>().licenses[0]!.code;
}

/** Signs up one holder of the code per machine. */
async function holders(target: TestApplication, code: string, machines: string[]): Promise<void> {
  for (const hardwareId of machines) {
    const res = await call(t, target, 'POST', '/sign_up_with_license_code', { code, hardware_id: hardwareId });
    expect(res.statusCode, res.body).toBe(201);
  }
}

const machines = (n: number, prefix = 'hw') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const loginAt = (code: string, hardwareId: string, target: TestApplication = app) => login(t, target, { code }, { hardware_id: hardwareId }, { ip: `198.51.100.${(hardwareId.length * 7) % 250}` });
const tokenOf = (res: LightMyRequestResponse) => res.json<{ session_token: string }>().session_token;
const events = async (action: string) => (await t.store.listEvents(app.id, { action }, { limit: 100 })).map((e) => e.data);

describe('logins on a floating license', () => {
  it('a refresh takes the seat as a login does: a remembered login refreshed still holds it', async () => {
    const code = await floatingCode(app, 1);
    await holders(app, code, ['hw-a', 'hw-b']);
    const remembered = await login(t, app, { code }, { hardware_id: 'hw-a', remember: true });
    expect(remembered.statusCode, remembered.body).toBe(200);
    const refreshed = await call(t, app, 'POST', '/auth/refresh', { refresh_token: remembered.json<{ refresh_token: string }>().refresh_token, hardware_id: 'hw-a' });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expectError(await loginAt(code, 'hw-b'), 403, 'SEATS_EXHAUSTED');
    // The refreshed session holds a lease: unheartbeated, it frees the seat two intervals later.
    t.clock.advance(LEASE_MS);
    expect((await loginAt(code, 'hw-b')).statusCode).toBe(200);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tokenOf(refreshed)) }), 401, 'SESSION_EXPIRED');
  });

  it('30 parallel logins on a 5-seat license admit exactly 5; the others get 403 SEATS_EXHAUSTED with Retry-After', async () => {
    const code = await floatingCode(app, 5);
    const crowd = machines(30);
    await holders(app, code, crowd);
    const answers = await Promise.all(crowd.map((hw) => loginAt(code, hw)));
    const admitted = answers.filter((r) => r.statusCode === 200);
    expect(admitted).toHaveLength(5);
    for (const refused of answers.filter((r) => r.statusCode !== 200)) {
      expectError(refused, 403, 'SEATS_EXHAUSTED');
      expect(refused.headers['retry-after']).toBe(String(LEASE_MS / 1000));
    }
    // seat.exhausted at most once a minute per license, however many were refused.
    expect(await events('seat.exhausted')).toHaveLength(1);
  });

  it('a 6th machine waits until a lease lapses; a login on a seated machine replaces its session without a new seat', async () => {
    const code = await floatingCode(app, 5);
    const crowd = machines(7);
    await holders(app, code, crowd);
    const tokens: string[] = [];
    for (const hw of crowd.slice(0, 5)) {
      const res = await loginAt(code, hw);
      expect(res.statusCode, res.body).toBe(200);
      tokens.push(tokenOf(res));
    }
    t.clock.advance(30_000);
    const sixth = expectError(await loginAt(code, 'hw-5'), 403, 'SEATS_EXHAUSTED');
    expect(sixth.message).toMatch(/seat/);
    expect((await loginAt(code, 'hw-5')).headers['retry-after']).toBe(String(LEASE_MS / 1000 - 30));
    // The same machine again: its session is replaced, no seat is needed.
    const again = await loginAt(code, 'hw-0');
    expect(again.statusCode, again.body).toBe(200);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tokens[0]!) }), 401, 'SESSION_EXPIRED');
    // Past 2 x the interval without a heartbeat the first four leases lapse (hw-0's is newer).
    t.clock.advance(LEASE_MS - 30_000);
    expect((await loginAt(code, 'hw-5')).statusCode).toBe(200);
    expect((await loginAt(code, 'hw-6')).statusCode).toBe(200);
    expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tokens[1]!) }), 401, 'SESSION_EXPIRED');
  });

  it('seat.exhausted again once a minute has passed', async () => {
    const code = await floatingCode(app, 1);
    await holders(app, code, ['hw-a', 'hw-b']);
    expect((await loginAt(code, 'hw-a')).statusCode).toBe(200);
    expectError(await loginAt(code, 'hw-b'), 403, 'SEATS_EXHAUSTED');
    t.clock.advance(59_999);
    expectError(await loginAt(code, 'hw-b'), 403, 'SEATS_EXHAUSTED');
    expect(await events('seat.exhausted')).toHaveLength(1);
    t.clock.advance(1);
    expectError(await loginAt(code, 'hw-b'), 403, 'SEATS_EXHAUSTED');
    const recorded = await events('seat.exhausted');
    expect(recorded).toHaveLength(2);
    expect(recorded[0]).toMatchObject({ seats: 1, hardware_id: 'hw-b' });
  });

  it('without heartbeat_seconds the lease is 2 x 300 seconds', async () => {
    const plain = await createApplication(t, { device_auth: true });
    const code = await floatingCode(plain, 1);
    await holders(plain, code, ['hw-a', 'hw-b']);
    expect((await loginAt(code, 'hw-a', plain)).statusCode).toBe(200);
    expect((await loginAt(code, 'hw-b', plain)).headers['retry-after']).toBe('300');
    t.clock.advance(600_000);
    expect((await loginAt(code, 'hw-b', plain)).statusCode).toBe(200);
  });
});

describe('legacy header requests on a floating license', () => {
  it('hold a seat while in use and free it once the hold lapses', async () => {
    const legacy = await createApplication(t, { device_auth: true, legacy_auth: true });
    const code = await floatingCode(legacy, 1);
    await holders(legacy, code, ['hw-a', 'hw-b']);
    const contextAt = (hardwareId: string) => call(t, legacy, 'GET', '/app_context', undefined, { headers: { 'x-api-license-code': code, 'x-hardware-id': hardwareId } });
    expect((await contextAt('hw-a')).statusCode).toBe(200);
    const refused = await contextAt('hw-b');
    expectError(refused, 403, 'SEATS_EXHAUSTED');
    expect(refused.headers['retry-after']).toBe(String(LEGACY_SESSION_HOLD_MS / 1000));
    expectError(await loginAt(code, 'hw-b', legacy), 403, 'SEATS_EXHAUSTED');
    t.clock.advance(LEGACY_SESSION_HOLD_MS);
    expect((await contextAt('hw-b')).statusCode).toBe(200);
  });
});

describe('borrowing a seat', () => {
  async function seated(seats: number, maxBorrowMinutes: number, crowd: string[]) {
    const code = await floatingCode(app, seats, maxBorrowMinutes);
    await holders(app, code, crowd);
    return code;
  }
  const borrow = (tok: string, body: unknown) => call(t, app, 'POST', '/borrow', body, { headers: bearer(tok) });
  const giveBack = (tok: string, body: unknown) => call(t, app, 'POST', '/return', body, { headers: bearer(tok) });

  it('holds the seat until its end, answers a license file expiring then, and frees it at the end', async () => {
    const code = await seated(1, 120, ['hw-a', 'hw-b']);
    const tok = tokenOf(await loginAt(code, 'hw-a'));
    const res = await borrow(tok, { hardware_id: 'hw-a', minutes: 90 });
    expect(res.statusCode, res.body).toBe(200);
    const end = t.clock.now() + 90 * 60_000;
    expect(res.json<{ expires_at: string }>().expires_at).toBe(new Date(end).toISOString());
    const publicKey = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json<{ response_signing_public_key: string }>().response_signing_public_key;
    const keys = pinnedEd25519Keys(publicKey, 'key');
    const claims = verifyLicenseFile(res.json<{ license_file: string }>().license_file, { keys, applicationId: app.id, hardwareId: 'hw-a', now: Math.floor(t.clock.now() / 1000) });
    expect(claims.exp * 1000).toBe(end);
    // The session's lease lapses; the borrow still holds the seat.
    t.clock.advance(LEASE_MS);
    const refused = expectError(await loginAt(code, 'hw-b'), 403, 'SEATS_EXHAUSTED');
    expect(refused).toBeDefined();
    expect((await loginAt(code, 'hw-b')).headers['retry-after']).toBe(String((end - t.clock.now()) / 1000));
    t.clock.set(end - 1);
    expectError(await loginAt(code, 'hw-b'), 403, 'SEATS_EXHAUSTED');
    t.clock.set(end);
    expect((await loginAt(code, 'hw-b')).statusCode).toBe(200);
    const borrowed = await events('seat.borrowed');
    expect(borrowed).toEqual([expect.objectContaining({ hardwareId: 'hw-a', borrowedUntil: end })]);
  });

  it('a returned seat is free at once; returning twice answers 404 BORROW_NOT_FOUND', async () => {
    const code = await seated(1, 60, ['hw-a', 'hw-b']);
    const tok = tokenOf(await loginAt(code, 'hw-a'));
    expect((await borrow(tok, { hardware_id: 'hw-a', minutes: 60 })).statusCode).toBe(200);
    // Borrowing again for the same machine replaces the borrow: it still holds one seat.
    expect((await borrow(tok, { hardware_id: 'hw-a', minutes: 30 })).statusCode).toBe(200);
    t.clock.advance(LEASE_MS);
    expectError(await loginAt(code, 'hw-b'), 403, 'SEATS_EXHAUSTED');
    // The machine comes back: its login needs no new seat, and it gives the borrow back.
    const back = await loginAt(code, 'hw-a');
    expect(back.statusCode, back.body).toBe(200);
    expect((await giveBack(tokenOf(back), { hardware_id: 'hw-a' })).statusCode).toBe(204);
    expectError(await giveBack(tokenOf(back), { hardware_id: 'hw-a' }), 404, 'BORROW_NOT_FOUND');
    await call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(tokenOf(back)) });
    expect((await loginAt(code, 'hw-b')).statusCode).toBe(200);
    expect(await events('seat.returned')).toEqual([expect.objectContaining({ hardwareId: 'hw-a' })]);
  });

  it('a borrow for another machine needs a free seat and the session machine: 422 on hardware_id', async () => {
    const code = await seated(2, 60, ['hw-a', 'hw-b', 'hw-c']);
    const tok = tokenOf(await loginAt(code, 'hw-a'));
    const other = expectError(await borrow(tok, { hardware_id: 'hw-b', minutes: 10 }), 422, 'VALIDATION_FAILED');
    expect(JSON.stringify(other)).toContain('hardware_id');
  });

  it('refuses minutes out of range (422), plans without borrowing and non-floating plans (403 BORROWING_NOT_ALLOWED)', async () => {
    const code = await seated(2, 60, ['hw-a']);
    const tok = tokenOf(await loginAt(code, 'hw-a'));
    for (const minutes of [0, 61, -1, 1.5]) expectError(await borrow(tok, { hardware_id: 'hw-a', minutes }), 422, 'VALIDATION_FAILED');
    const none = await seated(2, 0, ['hw-n']);
    expectError(await borrow(tokenOf(await loginAt(none, 'hw-n')), { hardware_id: 'hw-n', minutes: 1 }), 403, 'BORROWING_NOT_ALLOWED');
    const fixed = await floatingCode(app, 3, 60, false);
    await holders(app, fixed, ['hw-f']);
    expectError(await borrow(tokenOf(await loginAt(fixed, 'hw-f')), { hardware_id: 'hw-f', minutes: 1 }), 403, 'BORROWING_NOT_ALLOWED');
    expect(await events('seat.borrowed')).toEqual([]);
  });

  it("refuses without a session, with a tampered or another application's token, and after logout", async () => {
    const code = await seated(1, 60, ['hw-a']);
    const tok = tokenOf(await loginAt(code, 'hw-a'));
    expectError(await call(t, app, 'POST', '/borrow', { hardware_id: 'hw-a', minutes: 5 }), 401, 'LOGIN_REQUIRED');
    const tampered = `${tok.slice(0, -2)}${tok.at(-2) === 'A' ? 'B' : 'A'}${tok.slice(-1)}`;
    expect(tampered).not.toBe(tok);
    expect((await borrow(tampered, { hardware_id: 'hw-a', minutes: 5 })).statusCode).toBe(401);
    // The token of this application at another application: refused, nothing borrowed there or here.
    const other = await createApplication(t, { device_auth: true });
    const crossed = await call(t, other, 'POST', '/borrow', { hardware_id: 'hw-a', minutes: 5 }, { headers: bearer(tok) });
    expectError(crossed, 401, 'INVALID_CREDENTIALS');
    expectError(await call(t, other, 'POST', '/return', { hardware_id: 'hw-a' }, { headers: bearer(tok) }), 401, 'INVALID_CREDENTIALS');
    await call(t, app, 'POST', '/auth/logout', undefined, { headers: bearer(tok) });
    expectError(await borrow(tok, { hardware_id: 'hw-a', minutes: 5 }), 401, 'SESSION_EXPIRED');
    expect(await events('seat.borrowed')).toEqual([]);
  });
});
