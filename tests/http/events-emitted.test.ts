// Every change writes its event once, in its own transaction, naming its actor (the console's
// owner, the admin key, the end user, the system for background work), and never a secret; a
// refused change writes none (issue 17, acceptance 5; docs/events.md).
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/application/ports/event-store.js';
import { type TestApp, consoleRequest, createApplication, createLicenses, startTestApp } from '../support/test-app.js';
import { shown } from '../support/shown-events.js';
import { call, login, signUp } from '../support/integration.js';
import { processAll, upload } from '../support/files.js';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
let ownerId: string;
beforeEach(async () => {
  t = await startTestApp({ limits: { lockoutThreshold: 3 } });
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 1, ban_propagation: true, ban_propagation_to_addresses: true });
  ownerId = (await t.store.listOwners())[0]!.id;
});
afterEach(() => t.close());

const PASSWORD = 'user-password-1';
const all = async (): Promise<EventRecord[]> => (await t.store.listEvents(app.id, {}, { limit: 1000 })).map(shown);
const named = async (action: string) => (await all()).filter((e) => e.action === action);
/** The one event of `action`; fails on none or several. */
async function one(action: string): Promise<EventRecord> {
  const found = await named(action);
  expect(found, `${action}: ${found.length} events`).toHaveLength(1);
  return found[0]!;
}
const asOwner = { type: 'owner', id: expect.any(String), ip: '127.0.0.1' };

/** The stored log as text holds none of `secrets`. */
async function expectNoSecret(secrets: string[]): Promise<void> {
  const text = JSON.stringify(await all());
  expect(text).not.toContain('$argon2');
  for (const secret of secrets) expect(text, `a secret leaked into the log`).not.toContain(secret);
}

describe('events of the console owner', () => {
  it('licenses, bans, users, content and settings each write one event as the owner', async () => {
    const codes = await createLicenses(t, app.id, 3, 60);
    const created = await one('license.created');
    expect(created).toMatchObject({ actor: { type: 'owner', id: ownerId, ip: '127.0.0.1' }, data: { count: 3, minutes: 60 }, outcome: 'success' });

    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${codes[2]}`)).statusCode).toBe(204);
    expect(await one('license.deleted')).toMatchObject({ actor: asOwner, target: { type: 'license' } });

    const user = await signUp(t, app, 'alice', PASSWORD, { hardware_id: 'hw-a' });
    const ban = (await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'ip', value: '203.0.113.9', reason: 'abuse' })).json();
    expect(await one('ban.created')).toMatchObject({ actor: asOwner, target: { type: 'ban', id: ban.id }, data: { ban: { value: '203.0.113.9' }, propagated_from: null } });
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${ban.id}`)).statusCode).toBe(204);
    expect(await one('ban.removed')).toMatchObject({ actor: asOwner, target: { id: ban.id } });

    const until = new Date(t.clock.now() + 3_600_000).toISOString();
    expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/users/${user.id}/timeout`, { until, reason: 'cool off' })).statusCode).toBe(200);
    expect(await one('user.timed_out')).toMatchObject({ actor: asOwner, target: { type: 'user', id: user.id, label: 'alice' }, data: { timed_out_until: until, reason: 'cool off' } });
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${user.id}/timeout`)).statusCode).toBe(204);
    expect(await one('user.timeout_lifted')).toMatchObject({ actor: asOwner, changes: { timed_out_until: [until, null] } });

    expect((await consoleRequest(t, 'POST', `/applications/${app.id}/adjustments`, { user_ids: [user.id], minutes: 30 })).statusCode).toBe(200);
    expect(await one('membership.adjusted')).toMatchObject({ actor: asOwner, target: { id: user.id }, data: { adjustment: { minutes: 30 } } });

    expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/variables/motd`, { value: 'hello', is_public: true })).statusCode).toBe(200);
    // Values appear as their length and SHA-256, never themselves.
    const hello = { length: 5, sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' };
    expect(await one('variable.changed')).toMatchObject({ actor: asOwner, data: { scope: 'application', variable: { name: 'motd', value: hello } }, changes: { value: [null, hello] } });
    const announcement = await consoleRequest(t, 'POST', `/applications/${app.id}/announcements`, {
      title: 'News',
      content_html: '<p>hi</p>',
      status: 'DRAFT',
      publish_from: new Date(t.clock.now()).toISOString(),
    });
    expect(announcement.statusCode).toBe(201);
    expect(await one('announcement.changed')).toMatchObject({ actor: asOwner, data: { change: 'created', announcement: { title: 'News' } } });

    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { name: 'Renamed', session_ttl_seconds: 7200 })).statusCode).toBe(200);
    const settings = await one('application.settings_changed');
    expect(settings).toMatchObject({ actor: asOwner, changes: { name: ['Test App', 'Renamed'], session_ttl_seconds: [expect.any(Number), 7200] } });
    expect(Object.keys(settings.changes!).sort()).toEqual(['name', 'session_ttl_seconds']);

    const rotated = (await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/api_secret/rotate`)).json();
    expect(await one('application.credentials_rotated')).toMatchObject({ actor: asOwner, data: { credential: 'api_secret' }, changes: { api_secret: [null, null] } });

    await expectNoSecret([
      ...codes,
      rotated.api_secret,
      app.credentials.api_secret,
      app.credentials.admin_api_key,
      app.credentials.files_encryption_key,
      app.credentials.request_signing_key,
      PASSWORD,
    ]);
  });

  it('webhook endpoints made, changed, given a new secret and removed are audited as the owner, never with a secret', async () => {
    const made = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks`, { url: 'https://93.184.216.34/hook', events: ['user.created'] });
    expect(made.statusCode, made.body).toBe(201);
    const { endpoint, secret } = made.json<{ endpoint: { id: string }; secret: string }>();
    const target = { type: 'webhook', id: endpoint.id, label: 'https://93.184.216.34/hook' };
    expect(await one('webhook.created')).toMatchObject({ actor: asOwner, target, data: { webhook: { events: ['user.created'] } } });
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}/webhooks/${endpoint.id}`, { events: ['*'], enabled: false })).statusCode).toBe(200);
    expect(await one('webhook.updated')).toMatchObject({ actor: asOwner, target, changes: { events: [['user.created'], ['*']], enabled: [true, false] } });
    const rotated = await consoleRequest(t, 'POST', `/applications/${app.id}/webhooks/${endpoint.id}/rotate_secret`);
    expect(rotated.statusCode).toBe(200);
    expect(await one('webhook.secret_rotated')).toMatchObject({ actor: asOwner, target });
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/webhooks/${endpoint.id}`)).statusCode).toBe(204);
    expect(await one('webhook.deleted')).toMatchObject({ actor: asOwner, target });
    await expectNoSecret([secret, rotated.json<{ secret: string }>().secret, secret.replace(/^whsec_/, '')]);
  });

  it("an owner's device removal and session revocation name the owner; the sessions' end is one event", async () => {
    const user = await signUp(t, app, 'bob', PASSWORD, { hardware_id: 'hw-b' });
    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await call(t, app, 'POST', '/activate_license', { code, username: 'bob', password: PASSWORD, hardware_id: 'hw-b' })).statusCode).toBe(200);
    const session = await login(t, app, { username: 'bob', password: PASSWORD }, { hardware_id: 'hw-b' });
    expect(session.statusCode).toBe(200);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${user.id}/sessions`)).statusCode).toBe(204);
    expect(await one('session.revoked')).toMatchObject({ actor: asOwner, data: { reason: 'owner', revoked: 1 } });
    const page = (await consoleRequest(t, 'GET', `/applications/${app.id}/users/${user.id}`)).json();
    const device = page.registered_devices[0].id as string;
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/users/${user.id}/devices/${device}`)).statusCode).toBe(204);
    expect(await one('device.removed')).toMatchObject({ actor: asOwner, data: { device: { id: device, hardware_id: 'hw-b' }, reason: 'owner' } });
  });
});

describe('events of the end user', () => {
  it('sign-up, activation, login and logout each write one event as the end user, with the address', async () => {
    const user = await signUp(t, app, 'carol', PASSWORD, { hardware_id: 'hw-c' }, { ip: '198.51.100.7' });
    const asCarol = { type: 'end_user', id: user.id, ip: '198.51.100.7' };
    expect(await one('user.created')).toMatchObject({ actor: asCarol, data: { source: 'sign_up' } });
    // The machine the user signed up from is their first device.
    expect(await one('device.registered')).toMatchObject({ actor: asCarol, data: { device: { hardware_id: 'hw-c' } } });

    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await call(t, app, 'POST', '/activate_license', { code, username: 'carol', password: PASSWORD, hardware_id: 'hw-c' }, { ip: '198.51.100.7' })).statusCode).toBe(200);
    const activated = await one('license.activated');
    expect(activated).toMatchObject({ actor: asCarol, data: { user: { id: user.id }, license: { used_by_user_id: user.id } } });

    const res = await login(t, app, { username: 'carol', password: PASSWORD }, { hardware_id: 'hw-c' }, { ip: '198.51.100.7' });
    expect(res.statusCode).toBe(200);
    const token = res.json().session_token as string;
    expect(await one('session.created')).toMatchObject({ actor: asCarol, target: { id: user.id } });
    expect(await named('device.registered')).toHaveLength(1);

    const put = await t.inject({
      method: 'PUT',
      url: '/api/integration/user_variables/save_slot',
      headers: { ...app.headers, authorization: `Bearer ${token}` },
      payload: { value: 'level 3' },
      remoteAddress: '198.51.100.7',
    });
    expect(put.statusCode).toBe(200);
    expect(await one('variable.changed')).toMatchObject({
      actor: asCarol,
      target: { type: 'user_variable', label: 'save_slot' },
      data: { scope: 'user', user_id: user.id, variable: { name: 'save_slot', value: { length: 7, sha256: sha256Hex('level 3') } } },
      changes: { value: [null, { length: 7, sha256: sha256Hex('level 3') }] },
    });
    expect((await call(t, app, 'POST', '/auth/logout', undefined, { headers: { authorization: `Bearer ${token}` }, ip: '198.51.100.7' })).statusCode).toBe(204);
    expect(await one('session.revoked')).toMatchObject({ actor: asCarol, data: { reason: 'logout' } });
    await expectNoSecret([code!, token, PASSWORD]);
  });

  it('a sign-up with a license code writes user.created (its source) and license.activated, and never the code', async () => {
    const [code] = await createLicenses(t, app.id, 1, null);
    const res = await call(t, app, 'POST', '/sign_up_with_license_code', { code, hardware_id: 'hw-d' });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    expect(await one('user.created')).toMatchObject({ actor: { type: 'end_user', id }, data: { source: 'sign_up_with_license_code' } });
    expect(await one('license.activated')).toMatchObject({ actor: { type: 'end_user', id } });
    expect(await one('device.registered')).toMatchObject({ data: { device: { hardware_id: 'hw-d' } } });
    await expectNoSecret([code!]);
  });

  it('security outcomes: a device past the cap, a lockout, a banned attempt and the ban it propagates', async () => {
    await signUp(t, app, 'dave', PASSWORD, { hardware_id: 'hw-1' });
    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await call(t, app, 'POST', '/activate_license', { code, username: 'dave', password: PASSWORD, hardware_id: 'hw-1' })).statusCode).toBe(200);
    // A second machine past the one allowed: refused, its transaction rolled back, the outcome recorded.
    const refused = await login(t, app, { username: 'dave', password: PASSWORD }, { hardware_id: 'hw-2' });
    expect(refused.json().error_code).toBe('DEVICE_LIMIT_REACHED');
    expect(await one('device.limit_reached')).toMatchObject({ actor: { type: 'end_user' }, outcome: 'DEVICE_LIMIT_REACHED', data: { hardware_id: 'hw-2' } });
    expect(await named('session.created')).toEqual([]);
    // Only the sign-up's machine: the refused one was never registered.
    expect((await named('device.registered')).map((e) => e.data['device'])).toMatchObject([{ hardware_id: 'hw-1' }]);

    // Three wrong passwords lock the account at the address.
    for (let i = 0; i < 3; i++) expect((await login(t, app, { username: 'dave', password: 'wrong-password' }, { hardware_id: 'hw-1' })).statusCode).toBe(401);
    expect(await one('auth.locked')).toMatchObject({ actor: { type: 'end_user' }, outcome: 'ACCOUNT_LOCKED', target: { type: 'account', id: 'dave' } });

    // A banned hardware id: the attempt is refused and recorded, and the other identifiers it
    // carried are banned by propagation, as the system.
    const ban = (await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'hardware_id', value: 'hw-evil' })).json();
    const attempt = await call(t, app, 'POST', '/sign_up', { username: 'eve', password: PASSWORD, hardware_id: 'hw-evil' }, { ip: '192.0.2.66' });
    expect(attempt.json().error_code).toBe('BANNED');
    expect(await one('request.refused')).toMatchObject({ actor: { type: 'end_user', ip: '192.0.2.66' }, outcome: 'BANNED', target: { type: 'ban', id: ban.id } });
    const propagated = (await named('ban.created')).filter((e) => e.data['propagated_from'] === ban.id);
    expect(propagated).toHaveLength(1);
    expect(propagated[0]).toMatchObject({ actor: { type: 'system', id: null, ip: '192.0.2.66' }, data: { ban: { type: 'ip', value: '192.0.2.66' } } });
    expect(await named('user.created')).toHaveLength(1);
  });
});

describe('refused signatures', () => {
  it('an unsigned request to an application requiring signatures is recorded, with the caller address', async () => {
    const signed = await createApplication(t, { request_signing: true });
    const res = await t.inject({ method: 'GET', url: '/api/integration/app_context', headers: signed.headers, remoteAddress: '203.0.113.5' });
    expect(res.json().error_code).toBe('SIGNATURE_REQUIRED');
    const [refused] = (await t.store.listEvents(signed.id, { action: 'request.refused' }, { limit: 5 })).map(shown);
    expect(refused).toMatchObject({
      actor: { type: 'end_user', id: null, ip: '203.0.113.5' },
      outcome: 'SIGNATURE_REQUIRED',
      target: { type: 'application', id: signed.id },
      data: { code: 'SIGNATURE_REQUIRED' },
    });
  });
});

describe('events of the admin key and the system', () => {
  it('an admin upload completes as the system, its deletion names the admin key', async () => {
    const admin = `Bearer ${app.credentials.admin_api_key}`;
    const res = await upload(t, 'POST', '/api/admin/files', admin, { name: 'build.bin', is_public: 'false', store_encrypted: 'false' }, { content: Buffer.from('payload') });
    expect(res.statusCode).toBe(201);
    const fileId = res.json().id as string;
    await processAll(t);
    expect(await one('file.completed')).toMatchObject({
      actor: { type: 'system', id: null, ip: null },
      target: { type: 'file', id: fileId, label: 'build.bin' },
      data: { file: { processing_status: 'COMPLETED' } },
    });
    expect((await t.inject({ method: 'DELETE', url: `/api/admin/files/${fileId}`, headers: { authorization: admin } })).statusCode).toBe(204);
    expect(await one('file.deleted')).toMatchObject({ actor: { type: 'admin_key', id: app.id, ip: '127.0.0.1' }, target: { id: fileId } });
    await expectNoSecret([app.credentials.admin_api_key]);
  });

  it('an offline license file for a new machine registers it as the admin key', async () => {
    await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { default_allowed_devices: 2 });
    await signUp(t, app, 'frank', PASSWORD, { hardware_id: 'hw-f' });
    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await call(t, app, 'POST', '/activate_license', { code, username: 'frank', password: PASSWORD, hardware_id: 'hw-f' })).statusCode).toBe(200);
    const before = (await named('device.registered')).length;
    const res = await t.inject({
      method: 'POST',
      url: '/api/admin/license_files',
      headers: { authorization: `Bearer ${app.credentials.admin_api_key}` },
      payload: { username_or_license_code: 'frank', hardware_id: 'hw-air-gapped' },
    });
    expect(res.statusCode).toBe(201);
    const registered = await named('device.registered');
    expect(registered).toHaveLength(before + 1);
    expect(registered[0]).toMatchObject({ actor: { type: 'admin_key', id: app.id }, data: { device: { hardware_id: 'hw-air-gapped' } } });
  });

  it("a membership's expiry notices are the system's, once each", async () => {
    const user = await signUp(t, app, 'grace', PASSWORD, { hardware_id: 'hw-g' });
    const [code] = await createLicenses(t, app.id, 1, 60);
    expect((await call(t, app, 'POST', '/activate_license', { code, username: 'grace', password: PASSWORD, hardware_id: 'hw-g' })).statusCode).toBe(200);
    const activeUntil = new Date(t.clock.now() + 3_600_000).toISOString();
    expect(await t.notices.drain()).toBe(1);
    expect(await t.notices.drain()).toBe(0);
    const asSystem = { type: 'system', id: null, ip: null };
    const membership = { is_active: true, is_lifetime: false, active_until: activeUntil };
    expect(await one('membership.expiring')).toMatchObject({
      actor: asSystem,
      target: { type: 'user', id: user.id, label: 'grace' },
      data: { user: { id: user.id, username: 'grace', membership }, active_until: activeUntil, days_remaining: 1, notice_days: 7 },
    });
    t.clock.advance(3_600_000);
    expect(await t.notices.drain()).toBe(1);
    expect(await one('membership.expired')).toMatchObject({
      actor: asSystem,
      target: { type: 'user', id: user.id },
      data: { user: { membership: { ...membership, is_active: false } }, active_until: activeUntil, access_ended_at: activeUntil },
    });
    await expectNoSecret([PASSWORD, code!]);
  });
});

describe('a trial', () => {
  it("trial.started is the user's own, with the plan and the adjustment, once", async () => {
    const plan = (await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { name: 'Trial', kind: 'base', duration_minutes: 60, trial: true })).json();
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { trial_plan_id: plan.id })).statusCode).toBe(200);
    const user = await signUp(t, app, 'trina', PASSWORD, { hardware_id: 'hw-t' });
    const body = { credentials: { username: 'trina', password: PASSWORD }, hardware_id: 'hw-t' };
    expect((await call(t, app, 'POST', '/start_trial', body)).statusCode).toBe(200);
    expect((await call(t, app, 'POST', '/start_trial', body)).statusCode).toBe(409);
    const activeUntil = new Date(t.clock.now() + 3_600_000).toISOString();
    expect(await one('trial.started')).toMatchObject({
      actor: { type: 'end_user', id: user.id },
      target: { type: 'user', id: user.id, label: 'trina' },
      data: {
        user: { id: user.id, username: 'trina', membership: { is_active: true, is_lifetime: false, active_until: activeUntil } },
        plan: { id: plan.id, name: 'Trial' },
        adjustment: { type: 'trial', minutes: 60, license_id: null },
      },
    });
    // The ledger's keyed digest of the machine is no fact of the event.
    await expectNoSecret([PASSWORD, t.deps.secrets.digest('hw-t')]);
  });
});

describe('a refused change writes nothing', () => {
  it("a switch of plans writes membership.plan_changed as the end user; a seat's release membership.adjusted as the owner; a refused seat none", async () => {
    const user = await signUp(t, app, 'hana', PASSWORD, { hardware_id: 'hw-h' });
    const planLicense = async (name: string, seats = 1) => {
      const plan = (await consoleRequest(t, 'POST', `/applications/${app.id}/plans`, { name, kind: 'base', duration_minutes: 60, seats })).json();
      const [l] = (await consoleRequest(t, 'POST', `/applications/${app.id}/licenses`, { count: 1, plan_id: plan.id })).json().licenses;
      return { plan, license: l as { id: string; code: string } };
    };
    const redeem = (code: string) => call(t, app, 'POST', '/activate_license', { code, username: 'hana', password: PASSWORD, hardware_id: 'hw-h' });
    const basic = await planLicense('Basic');
    const pro = await planLicense('Pro', 3);
    expect((await redeem(basic.license.code)).statusCode).toBe(200);
    expect(await named('membership.plan_changed')).toEqual([]);
    expect((await redeem(pro.license.code)).statusCode).toBe(200);
    expect(await one('membership.plan_changed')).toMatchObject({ actor: { type: 'end_user', id: user.id }, target: { id: user.id }, data: { plan_from: basic.plan.id, plan_to: pro.plan.id } });
    const before = (await all()).length;
    expect((await redeem(pro.license.code)).json().error_code).toBe('LICENSE_ALREADY_REDEEMED');
    expect(await all()).toHaveLength(before);
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${pro.license.id}/redemptions/${user.id}`)).statusCode).toBe(204);
    expect(await one('membership.adjusted')).toMatchObject({ actor: asOwner, data: { adjustment: { type: 'bulk', license_id: pro.license.id, plan_from: pro.plan.id, plan_to: basic.plan.id } } });
    await expectNoSecret([basic.license.code, pro.license.code]);
  });

  it('deleting a used license, timing out a missing user, a taken username: no event', async () => {
    const [code] = await createLicenses(t, app.id, 1, 60);
    await signUp(t, app, 'gina', PASSWORD, { hardware_id: 'hw-g' });
    expect((await call(t, app, 'POST', '/activate_license', { code, username: 'gina', password: PASSWORD, hardware_id: 'hw-g' })).statusCode).toBe(200);
    const before = (await all()).length;
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/licenses/${code}`)).json().error_code).toBe('LICENSE_CONSUMED');
    const until = new Date(t.clock.now() + 60_000).toISOString();
    expect((await consoleRequest(t, 'PUT', `/applications/${app.id}/users/00000000-0000-4000-8000-000000000000/timeout`, { until })).statusCode).toBe(404);
    expect((await call(t, app, 'POST', '/sign_up', { username: 'GINA', password: PASSWORD, hardware_id: 'hw-x' })).statusCode).toBe(422);
    expect((await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { session_ttl_seconds: 1 })).statusCode).toBe(422);
    expect(await all()).toHaveLength(before);
  });
});
