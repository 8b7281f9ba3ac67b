// Ban propagation under the amended rule (docs/choices.md, "Bans"): addresses never pass a ban on to a
// person, propagated bans record their origin and stop there, propagated IP bans expire, and a
// ban can be deleted with what it propagated. The first test is the security review's
// reproduction: one owner ban must not become a cascade of bans on users sharing an address.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, call, expectError, login, member, type TestApplication } from '../support/integration.js';

interface BanJson {
  id: string;
  type: string;
  value: string;
  reason: string | null;
  created_at: string;
  propagated_from: string | null;
  expires_at: string | null;
}

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true });
});
afterEach(() => t.close());

const listBans = async (a: TestApplication = app) => (await consoleRequest(t, 'GET', `/applications/${a.id}/bans`)).json<BanJson[]>();
const HOUR = 3_600_000;
const NAT = '10.50.0.1';
const HOME = '10.50.0.2';

const propagateToAddresses = async (a: TestApplication = app) => {
  const res = await consoleRequest(t, 'PATCH', `/applications/${a.id}`, { ban_propagation_to_addresses: true });
  expect(res.json().ban_propagation_to_addresses).toBe(true);
};

describe('ban propagation through shared addresses (the review reproductions)', () => {
  it('by default a banned user signing in from a shared address bans their own things, never the address', async () => {
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().ban_propagation_to_addresses).toBe(false);
    const alice = await member(t, app, 'alice', undefined, 6000, { hardware_id: 'HW-A' });
    const bob = await member(t, app, 'bob', undefined, 6000, { hardware_id: 'HW-B' });
    const ownerBan = await ban(t, app, 'user', alice.id);
    expectError(await login(t, app, { username: 'alice', password: alice.password }, { hardware_id: 'HW-A' }, { ip: NAT }), 403, 'BANNED');
    const propagated = (await listBans()).filter((b) => b.id !== ownerBan.id);
    expect(propagated.map((b) => [b.type, b.value]).sort()).toEqual(
      [
        ['hardware_id', 'HW-A'],
        ['license', alice.code],
      ].sort(),
    );
    // Everyone else behind the address is still served there.
    expect((await login(t, app, { username: 'bob', password: bob.password }, { hardware_id: 'HW-B' }, { ip: NAT })).statusCode).toBe(200);
    expect((await call(t, app, 'POST', '/sign_up', { username: 'newbie', password: 'password123', hardware_id: 'HW-N' }, { ip: NAT })).statusCode).toBe(201);
  });

  it('three users behind two addresses: with propagation to addresses on, one owner ban bans the banned user’s things and the shared address for a while, never the other users', async () => {
    await propagateToAddresses();
    const alice = await member(t, app, 'alice', undefined, 6000, { hardware_id: 'HW-A' });
    const bob = await member(t, app, 'bob', undefined, 6000, { hardware_id: 'HW-B' });
    const carol = await member(t, app, 'carol', undefined, 6000, { hardware_id: 'HW-C' });
    const signIn = (name: string, password: string, hw: string, ip: string) => login(t, app, { username: name, password }, { hardware_id: hw }, { ip });

    const ownerBan = await ban(t, app, 'user', alice.id);
    // The banned user signs in from the shared address: refused, and her address, device and
    // license are banned by propagation.
    expectError(await signIn('alice', alice.password, 'HW-A', NAT), 403, 'BANNED');
    const afterAlice = await listBans();
    const propagated = afterAlice.filter((b) => b.id !== ownerBan.id);
    expect(propagated.map((b) => [b.type, b.value]).sort()).toEqual(
      [
        ['hardware_id', 'HW-A'],
        ['ip', NAT],
        ['license', alice.code],
      ].sort(),
    );
    expect(propagated.every((b) => b.propagated_from === ownerBan.id)).toBe(true);
    const natBan = propagated.find((b) => b.type === 'ip')!;
    expect(natBan.expires_at).toBe(new Date(t.clock.now() + 24 * HOUR).toISOString());
    expect(propagated.filter((b) => b.type !== 'ip').every((b) => b.expires_at === null)).toBe(true);

    // The innocent users behind the same address are refused there (the address is banned)...
    expectError(await signIn('bob', bob.password, 'HW-B', NAT), 403, 'BANNED');
    expectError(await signIn('carol', carol.password, 'HW-C', NAT), 403, 'BANNED');
    // ...but nothing of theirs is banned, so they sign in from their other address.
    expect((await listBans()).map((b) => b.id).sort()).toEqual(afterAlice.map((b) => b.id).sort());
    expect((await signIn('bob', bob.password, 'HW-B', HOME)).statusCode).toBe(200);
    expect((await signIn('carol', carol.password, 'HW-C', HOME)).statusCode).toBe(200);
    // A propagated ban propagates no further: carol coming with alice's device (banned by
    // propagation) is refused, but neither she nor the second address gets banned.
    expectError(await signIn('carol', carol.password, 'HW-A', HOME), 403, 'BANNED');
    expect((await listBans()).map((b) => b.id).sort()).toEqual(afterAlice.map((b) => b.id).sort());
    expect((await signIn('carol', carol.password, 'HW-C', HOME)).statusCode).toBe(200);

    // The shared address's ban expires after propagated_ip_ban_hours (default 24).
    t.clock.advance(24 * HOUR);
    expect((await signIn('bob', bob.password, 'HW-B', NAT)).statusCode).toBe(200);
    expect((await listBans()).some((b) => b.value === NAT)).toBe(false);

    // Deleting the owner's ban with cascade=true lifts what it propagated too.
    const del = await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${ownerBan.id}?cascade=true`);
    expect(del.statusCode).toBe(204);
    expect(await listBans()).toEqual([]);
    expect((await signIn('alice', alice.password, 'HW-A', NAT)).statusCode).toBe(200);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}/licenses/${alice.code}`)).json().banned).toBe(false);
  });
});

describe('propagated bans', () => {
  it('a request refused only because its address is banned propagates nothing, on every path', async () => {
    const u = await member(t, app, 'dora', undefined, 600, { hardware_id: 'HW-D' });
    await ban(t, app, 'ip', NAT);
    expectError(await login(t, app, { username: 'dora', password: u.password }, { hardware_id: 'HW-D' }, { ip: NAT }), 403, 'BANNED');
    const legacy = await createApplication(t, { device_auth: true, legacy_auth: true });
    const l = await member(t, legacy, 'lena', undefined, 600, { hardware_id: 'HW-L' });
    await ban(t, legacy, 'ip', NAT);
    const headers = { 'x-api-username': 'lena', 'x-api-password': l.password, 'x-hardware-id': 'HW-L' };
    expectError(await call(t, legacy, 'GET', '/app_context', undefined, { headers, ip: NAT }), 403, 'BANNED');
    expectError(await call(t, app, 'POST', '/sign_up', { username: 'newbie', password: 'password123', hardware_id: 'HW-N' }, { ip: NAT }), 403, 'BANNED');
    expect((await listBans()).map((b) => b.value)).toEqual([NAT]);
    expect((await listBans(legacy)).map((b) => b.value)).toEqual([NAT]);
  });

  it('propagated_ip_ban_hours: set on create, shown, patched; null keeps propagated IP bans for good', async () => {
    const created = await consoleRequest(t, 'POST', '/applications', { name: 'Hours', propagated_ip_ban_hours: 2 });
    expect(created.json().application.propagated_ip_ban_hours).toBe(2);
    expect((await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().propagated_ip_ban_hours).toBe(24);
    const patched = await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { propagated_ip_ban_hours: null });
    expect(patched.json().propagated_ip_ban_hours).toBeNull();
    for (const bad of [0, 8761, 1.5, '24']) {
      const res = await consoleRequest(t, 'PATCH', `/applications/${app.id}`, { propagated_ip_ban_hours: bad });
      expect(expectError(res, 422, 'VALIDATION_FAILED')).toMatchObject({ errors: [{ field: 'propagated_ip_ban_hours' }] });
    }

    await propagateToAddresses();
    const u = await member(t, app, 'erik', undefined, 600, { hardware_id: 'HW-E' });
    await ban(t, app, 'hardware_id', 'HW-E');
    expectError(await login(t, app, { username: 'erik', password: u.password }, { hardware_id: 'HW-E' }, { ip: NAT }), 403, 'BANNED');
    const ipBan = (await listBans()).find((b) => b.type === 'ip');
    expect(ipBan).toMatchObject({ value: NAT, expires_at: null });
    // Looked at in two steps: the owner's console token expires after 30 days unused.
    t.clock.advance(500 * HOUR);
    expect((await listBans()).some((b) => b.value === NAT)).toBe(true);
    t.clock.advance(500 * HOUR);
    expect((await listBans()).some((b) => b.value === NAT)).toBe(true);
  });

  it("an owner's ban of a propagated identifier takes it over: permanent, no origin, and it propagates", async () => {
    const u = await member(t, app, 'fay', undefined, 600, { hardware_id: 'HW-F' });
    const first = await ban(t, app, 'user', u.id);
    expectError(await login(t, app, { username: 'fay', password: u.password }, { hardware_id: 'HW-F' }, { ip: NAT }), 403, 'BANNED');
    const owners = (await consoleRequest(t, 'POST', `/applications/${app.id}/bans`, { type: 'ip', value: NAT, reason: 'abuse' })).json<BanJson>();
    expect(owners).toMatchObject({ type: 'ip', value: NAT, reason: 'abuse', propagated_from: null, expires_at: null });
    // Deleting the first ban with its cascade leaves the owner's own ban of the address.
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${first.id}?cascade=true`)).statusCode).toBe(204);
    expect((await listBans()).map((b) => b.id)).toEqual([owners.id]);
  });

  it('deleting without cascade keeps what the ban propagated; cascade accepts only true or false', async () => {
    const u = await member(t, app, 'gus', undefined, 600, { hardware_id: 'HW-G' });
    const origin = await ban(t, app, 'user', u.id);
    expectError(await login(t, app, { username: 'gus', password: u.password }, { hardware_id: 'HW-G' }, { ip: NAT }), 403, 'BANNED');
    const bad = await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${origin.id}?cascade=yes`);
    expect(expectError(bad, 422, 'VALIDATION_FAILED')).toMatchObject({ errors: [{ field: 'cascade' }] });
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/bans/${origin.id}?cascade=false`)).statusCode).toBe(204);
    const left = await listBans();
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((b) => b.propagated_from === origin.id)).toBe(true);
  });
});
