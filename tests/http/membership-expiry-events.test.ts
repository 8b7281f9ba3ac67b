// Issue 42, acceptance 3: with two instances on one database and a clock moved across
// expiry_notice_days and then across the expiry, each membership.expiring and membership.expired
// arrives once at a webhook receiver, and a membership extended before its moment sends nothing
// for the period it replaced (docs/events.md, Expiry notices). Both instances look at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/membership-notices.js';
import { call, signUp, type TestApplication } from '../support/integration.js';
import { consoleRequest, createApplication, createLicenses, startTestApp, T0, type TestApp } from '../support/test-app.js';
import { startReceiver, verifyDelivery, type Receiver } from '../support/webhook-receiver.js';

const PASSWORD = 'user-password-1';
const TEN_DAYS_MINUTES = 10 * 24 * 60;

let t: TestApp;
let peer: TestApp;
let receiver: Receiver;
beforeEach(async () => {
  t = await startTestApp({ webhooksAllowPrivate: true });
  peer = await t.startPeer();
  receiver = await startReceiver();
});
afterEach(async () => {
  await t.close();
  await receiver.close();
});

/** Both instances look for notices at the same moment; how many they recorded together. */
async function bothLook(): Promise<number> {
  const [a, b] = await Promise.all([t.notices.drain(), peer.notices.drain()]);
  return a + b;
}

/** Both instances deliver until nothing is due. */
async function bothDeliver(): Promise<void> {
  const deliver = async (i: TestApp) => {
    while ((await i.webhooks.drain()) > 0);
  };
  await Promise.all([deliver(t), deliver(peer)]);
}

/** Redeems a fresh ten-day license for the user, through `via`. */
async function redeem(via: TestApp, a: TestApplication, username: string): Promise<void> {
  const [code] = await createLicenses(t, a.id, 1, TEN_DAYS_MINUTES);
  const res = await call(via, a, 'POST', '/activate_license', { code, username, password: PASSWORD });
  expect(res.statusCode, res.body).toBe(200);
}

describe('membership expiry events from two instances', () => {
  it('each arrives once; an extension before the moment cancels the old period', async () => {
    const created = await createApplication(t, { device_auth: false, expiry_notice_days: 3 });
    const a = { id: created.id, headers: created.headers };
    const hook = await consoleRequest(t, 'POST', `/applications/${a.id}/webhooks`, { url: receiver.url, events: ['membership.expiring', 'membership.expired'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const secret = hook.json().secret as string;

    const ids: Record<string, string> = {};
    for (const name of ['alice', 'bob', 'carol']) {
      ids[name] = (await signUp(t, a, name, PASSWORD)).id;
      await redeem(name === 'bob' ? peer : t, a, name); // each ends at T0 + 10 days
    }
    expect(await bothLook()).toBe(0);

    t.clock.set(T0 + 5 * DAY_MS);
    await redeem(peer, a, 'bob'); // extended before his notice: to T0 + 20 days
    expect(await bothLook()).toBe(0);

    t.clock.set(T0 + 7 * DAY_MS + 60_000); // less than 3 days before T0 + 10 days
    expect(await bothLook()).toBe(2); // alice's and carol's expiring
    expect(await bothLook()).toBe(0);

    t.clock.set(T0 + 8 * DAY_MS);
    await redeem(t, a, 'carol'); // extended after her notice, before her expiry: to T0 + 20 days

    t.clock.set(T0 + 10 * DAY_MS);
    expect(await bothLook()).toBe(1); // alice's expired
    t.clock.set(T0 + 17 * DAY_MS + 60_000);
    expect(await bothLook()).toBe(2); // bob's and carol's expiring, of the new period
    t.clock.set(T0 + 20 * DAY_MS);
    expect(await bothLook()).toBe(2); // bob's and carol's expired
    t.clock.set(T0 + 25 * DAY_MS);
    expect(await bothLook()).toBe(0);

    await bothDeliver();
    const deliveries = receiver.received.map((r) => ({
      id: String(r.headers['webhook-id']),
      body: verifyDelivery(secret, r) as { type: string; data: { user: { id: string }; active_until: string } },
    }));
    expect(deliveries.length, 'one delivery per event').toBe(new Set(deliveries.map((d) => d.id)).size);
    const iso = (days: number) => new Date(T0 + days * DAY_MS).toISOString();
    const seen = deliveries.map(({ body }) => `${Object.keys(ids).find((n) => ids[n] === body.data.user.id)} ${body.type} ${body.data.active_until}`).sort();
    expect(seen).toEqual(
      [
        `alice membership.expiring ${iso(10)}`,
        `alice membership.expired ${iso(10)}`,
        `bob membership.expiring ${iso(20)}`,
        `bob membership.expired ${iso(20)}`,
        `carol membership.expiring ${iso(10)}`,
        `carol membership.expiring ${iso(20)}`,
        `carol membership.expired ${iso(20)}`,
      ].sort(),
    );
    // The events are the audit log's too, as the system's.
    const audit = await consoleRequest(t, 'GET', `/applications/${a.id}/audit?action=membership.expired`);
    expect(audit.json().entries.map((e: { actor: { type: string } }) => e.actor.type)).toEqual(['system', 'system', 'system']);
  });

  it('expiry_notice_days is a setting from 0 to 90, 7 by default', async () => {
    const created = await createApplication(t);
    expect((await consoleRequest(t, 'GET', `/applications/${created.id}`)).json().expiry_notice_days).toBe(7);
    for (const bad of [-1, 91, 2.5, '7', null]) {
      const res = await consoleRequest(t, 'PATCH', `/applications/${created.id}`, { expiry_notice_days: bad });
      expect(res.statusCode, String(bad)).toBe(422);
      expect(res.json().error_code).toBe('VALIDATION_FAILED');
    }
    expect((await consoleRequest(t, 'PATCH', `/applications/${created.id}`, { expiry_notice_days: 0 })).json().expiry_notice_days).toBe(0);
    expect((await consoleRequest(t, 'PATCH', `/applications/${created.id}`, { expiry_notice_days: 90 })).json().expiry_notice_days).toBe(90);
    // The other instance reads the same setting.
    expect((await consoleRequest(peer, 'GET', `/applications/${created.id}`)).json().expiry_notice_days).toBe(90);
  });
});
