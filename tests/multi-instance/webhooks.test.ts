// Acceptance (issue 17, points 2 and 3): webhook deliveries survive the server being SIGKILLed,
// and two instances on one database deliver each event exactly once. The compiled server runs as
// child processes (GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1, the receiver being on loopback), on SQLite
// (one data folder) and, when GATEHOUSE_TEST_DATABASE_URL is set, on PostgreSQL.
//  - Crash: users sign up while the receiver refuses every delivery, one sign-up is refused
//    (USERNAME_TAKEN, rolled back), and the server is SIGKILLed right after the last committed
//    change, its deliveries pending. Restarted, it delivers every committed event, and the
//    refused sign-up's event never existed.
//  - Two instances: sign-ups spread over both; every event reaches the receiver once, each
//    delivery with exactly one attempt recorded.
//  - Expiry notices: a restarted server's first pass announces a membership ending within the
//    notice days (the scheduler is started by the server itself).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/postgres-databases.js';
import { baseServerEnv, buildServer, killServer, runCli, startServerProcess, type Build, type ServerProcess } from '../support/server-process.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { request } from './json-request.js';

const postgresUrl = process.env['GATEHOUSE_TEST_DATABASE_URL'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Server starts may be slow while the rest of the suite runs on two cores: a bound, not a wait. */
const START_LIMIT_MS = 60_000;
/**
 * How long deliveries may take to arrive: retries after a refused attempt wait about 5 s, and a
 * delivery whose attempt the kill interrupted waits for its 60 s lease. A bound, not a wait.
 */
const DELIVERY_LIMIT_MS = 100_000;

let build: Promise<Build> | null = null;
const getBuild = () => (build ??= buildServer());
afterAll(async () => {
  if (build !== null) (await build.catch(() => null))?.remove();
});

/** How often each webhook-id arrived at `r`. */
function arrivals(r: Receiver): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of r.received) out.set(String(x.headers['webhook-id']), (out.get(String(x.headers['webhook-id'])) ?? 0) + 1);
  return out;
}

/** A receiver that answers 503 while refusing, 204 otherwise, remembering the ids it accepted. */
async function switchableReceiver(): Promise<{ receiver: Receiver; accepted: Set<string>; refuse(on: boolean): void }> {
  const accepted = new Set<string>();
  let refusing = false;
  const receiver = await startReceiver('/hook', (r) => {
    if (refusing) return { status: 503 };
    accepted.add(String(r.headers['webhook-id']));
    return { status: 204 };
  });
  return { receiver, accepted, refuse: (on) => void (refusing = on) };
}

function scenarios(name: string, envs: () => Promise<{ a: NodeJS.ProcessEnv; b: NodeJS.ProcessEnv; drop(): Promise<void> }>) {
  let outDir = '';
  let env: { a: NodeJS.ProcessEnv; b: NodeJS.ProcessEnv; drop(): Promise<void> };
  let ownerAuth: Record<string, string> = {};
  const servers: ServerProcess[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    const [built, e] = await Promise.all([getBuild(), envs()]);
    outDir = built.outDir;
    env = e;
    const stdout = await runCli(outDir, env.a, ['owner', 'create', '--init', '--email', 'hooks@example.com', '--password', 'webhooks-password-1']);
    ownerAuth = { authorization: `Bearer ${(JSON.parse(stdout) as { token: string }).token}` };
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => killServer(s)));
    await Promise.all(receivers.map((r) => r.close()));
    await env?.drop();
  });

  async function start(which: NodeJS.ProcessEnv): Promise<ServerProcess> {
    const s = await startServerProcess(outDir, which, START_LIMIT_MS);
    servers.push(s);
    return s;
  }

  async function appWithEndpoint(base: string, url: string) {
    const app = await request(base, 'POST', '/api/console/applications', ownerAuth, { name: `Hooks ${name}`, device_auth: false });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const c = app.body.credentials as { api_key: string; api_secret: string };
    const hook = await request(base, 'POST', `/api/console/applications/${app.body.application.id}/webhooks`, ownerAuth, { url, events: ['user.created'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    return { id: app.body.application.id as string, hookId: hook.body.endpoint.id as string, headers: { 'x-api-key': c.api_key, 'x-api-secret': c.api_secret } };
  }

  const signUp = (base: string, headers: Record<string, string>, username: string) => request(base, 'POST', '/api/integration/sign_up', headers, { username, password: 'webhook-user-password' });

  async function deliveries(base: string, appId: string, hookId: string) {
    const res = await request(base, 'GET', `/api/console/applications/${appId}/webhooks/${hookId}/deliveries`, ownerAuth);
    expect(res.status).toBe(200);
    return res.body as Array<{ event_id: string; state: string; attempts: unknown[] }>;
  }

  /** Waits (bounded) until every delivery of the endpoint has settled and `want` ids were accepted. */
  async function settled(base: string, appId: string, hookId: string, accepted: Set<string>, want: number) {
    const started = Date.now();
    for (;;) {
      const list = await deliveries(base, appId, hookId);
      if (accepted.size >= want && list.length >= want && list.every((d) => d.state !== 'pending')) return list;
      if (Date.now() - started > DELIVERY_LIMIT_MS) throw new Error(`deliveries still pending: ${JSON.stringify(list.map((d) => [d.state, d.attempts.length]))}, ${accepted.size} accepted`);
      await sleep(250);
    }
  }

  it('a SIGKILL with deliveries pending only delays them; a rolled-back change delivers nothing', async () => {
    const { receiver, accepted, refuse } = await switchableReceiver();
    receivers.push(receiver);
    refuse(true);
    let a = await start(env.a);
    const app = await appWithEndpoint(a.base, receiver.url);
    const names = ['crash-1', 'crash-2', 'crash-3', 'crash-4', 'crash-5'];
    for (const n of names.slice(0, 4)) expect((await signUp(a.base, app.headers, n)).status).toBe(201);
    // Their first attempts are refused: those deliveries now wait for their retry.
    const started = Date.now();
    while (new Set(receiver.received.map((x) => x.headers['webhook-id'])).size < 4) {
      if (Date.now() - started > DELIVERY_LIMIT_MS) throw new Error(`only ${receiver.received.length} attempts arrived`);
      await sleep(100);
    }
    // Rolled back: its event and delivery were never committed.
    const taken = await signUp(a.base, app.headers, 'CRASH-1');
    expect(taken.status).toBe(422);
    expect(taken.body.error_code).toBe('USERNAME_TAKEN');
    // The last change commits, and the server dies before its delivery can be made.
    expect((await signUp(a.base, app.headers, names[4]!)).status).toBe(201);
    await killServer(a);
    expect(accepted.size).toBe(0);

    refuse(false);
    a = await start(env.a);
    const list = await settled(a.base, app.id, app.hookId, accepted, names.length);
    expect(list).toHaveLength(names.length);
    expect(list.every((d) => d.state === 'succeeded')).toBe(true);
    const delivered = receiver.received.filter((x) => accepted.has(String(x.headers['webhook-id'])));
    const users = new Set(delivered.map((x) => JSON.parse(x.body).data.user.username as string));
    expect([...users].sort()).toEqual(names);
    expect(accepted.size).toBe(names.length);
    await killServer(a);
  }, 240_000);

  it('a server looks for expiry notices from its start: a membership ending within the notice days is announced', async () => {
    const { receiver, accepted } = await switchableReceiver();
    receivers.push(receiver);
    let a = await start(env.a);
    const made = await request(a.base, 'POST', '/api/console/applications', ownerAuth, { name: `Expiry ${name}`, device_auth: false });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const appId = made.body.application.id as string;
    const c = made.body.credentials as { api_key: string; api_secret: string };
    const hook = await request(a.base, 'POST', `/api/console/applications/${appId}/webhooks`, ownerAuth, { url: receiver.url, events: ['membership.expiring'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const licenses = await request(a.base, 'POST', `/api/console/applications/${appId}/licenses`, ownerAuth, { count: 1, minutes: 60 });
    expect(licenses.status).toBe(201);
    const user = await request(a.base, 'POST', '/api/integration/sign_up_with_license_code', { 'x-api-key': c.api_key, 'x-api-secret': c.api_secret }, { code: licenses.body.licenses[0].code });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    // An hour is within the default 7 notice days; the restarted server's first pass finds it.
    await killServer(a);
    a = await start(env.a);
    const started = Date.now();
    while (accepted.size < 1) {
      if (Date.now() - started > DELIVERY_LIMIT_MS) throw new Error('no membership.expiring arrived');
      await sleep(250);
    }
    const bodies = receiver.received.map((x) => JSON.parse(x.body) as { type: string; data: { user: { id: string } } });
    expect(bodies.map((b) => [b.type, b.data.user.id])).toEqual([['membership.expiring', user.body.id]]);
    await killServer(a);
  }, 240_000);

  it('two instances deliver each event exactly once', async () => {
    const { receiver, accepted } = await switchableReceiver();
    receivers.push(receiver);
    const a = await start(env.a);
    const b = await start(env.b);
    const app = await appWithEndpoint(a.base, receiver.url);
    const count = 30;
    const answers = await Promise.all(Array.from({ length: count }, (_, i) => signUp(i % 2 === 0 ? a.base : b.base, app.headers, `pair-${i}`)));
    expect(answers.map((x) => x.status)).toEqual(Array(count).fill(201));
    const list = await settled(b.base, app.id, app.hookId, accepted, count);
    expect(list).toHaveLength(count);
    // Each delivery was attempted once, by one instance: once succeeded, nothing claims it again.
    for (const d of list) expect(d).toMatchObject({ state: 'succeeded', attempts: [expect.anything()] });
    const seen = arrivals(receiver);
    expect(seen.size).toBe(count);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  }, 240_000);
}

const common = { LOG_LEVEL: 'warn', GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE: '1', GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000', GATEHOUSE_IP_FAILURE_LIMIT: '100000' };

describe('webhooks on sqlite', () => {
  scenarios('sqlite', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-hooks-sqlite-'));
    const e = baseServerEnv({ ...common, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64') });
    return { a: e, b: { ...e }, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  });
});

// Registered only with a PostgreSQL server to run on (the sqlite suite above always runs).
if (postgresUrl) {
  describe('webhooks on postgres', () => {
    scenarios('postgres', async () => {
      const db = await freshDatabase();
      const masterKey = randomBytes(32).toString('base64');
      const dirs = [mkdtempSync(join(tmpdir(), 'gatehouse-hooks-pg-')), mkdtempSync(join(tmpdir(), 'gatehouse-hooks-pg-'))];
      const envOf = (dir: string) => baseServerEnv({ ...common, DATABASE_URL: db.url, GATEHOUSE_MASTER_KEY: masterKey, GATEHOUSE_DATA_DIR: dir });
      return {
        a: envOf(dirs[0]!),
        b: envOf(dirs[1]!),
        drop: async () => {
          await db.drop();
          for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  });
}
