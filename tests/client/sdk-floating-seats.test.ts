// Acceptance (issue 43, point 3, floating seats): the SDK's heartbeat keeps a floating seat past
// two intervals while another holder is refused, and a killed client's seat frees itself. The
// server runs in process on a listening socket with a clock the test moves; beats happen when the
// test fires them, in this process or, for the kill, in a child process on the compiled SDK.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatehouseClient, SeatsExhaustedError } from '../../src/client/gatehouse-client.js';
import { buildServer } from '../support/server-process.js';
import { consoleRequest, createApplication, listenOnLoopback, startTestApp, type AppCredentials, type TestApp } from '../support/test-app.js';
import { exportedFile } from './live-server.js';
import { manualSchedule } from './manual-schedule.js';

const INTERVAL_S = 30;
const LEASE_MS = 2 * INTERVAL_S * 1000;
let t: TestApp;
let base: string;
let appId: string;
let credentials: AppCredentials;
let planId: string;
let compiledClient: string;

beforeAll(async () => {
  const [build] = await Promise.all([buildServer(), (async () => (t = await startTestApp()))()]);
  compiledClient = exportedFile(build.outDir, './client');
  base = await listenOnLoopback(t);
  const app = await createApplication(t, { heartbeat_seconds: INTERVAL_S, session_ttl_seconds: 3600, device_auth: true, default_allowed_devices: 2 });
  appId = app.id;
  credentials = app.credentials;
  const plan = await consoleRequest(t, 'POST', `/applications/${appId}/plans`, { name: 'Floating 1', kind: 'base', duration_minutes: 600, seats: 1, floating: true });
  expect(plan.statusCode, plan.body).toBe(201);
  planId = plan.json<{ id: string }>().id;
}, 300_000);

afterAll(async () => {
  await t?.close();
});

const clientOn = (hardwareId: string) => new GatehouseClient({ baseUrl: base, apiKey: credentials.api_key, apiSecret: credentials.api_secret, hardwareId });

/** A one-seat floating license's code, and two holders who signed up with it on machines of their own. */
async function sharedSeat(): Promise<{ code: string; a: string; b: string }> {
  const res = await consoleRequest(t, 'POST', `/applications/${appId}/licenses`, { count: 1, plan_id: planId });
  expect(res.statusCode, res.body).toBe(201);
  const code = res.json<{ licenses: Array<{ code: string }> }>().licenses[0]!.code;
  const suffix = code.slice(-6);
  const [a, b] = [`hw-a-${suffix}`, `hw-b-${suffix}`];
  await clientOn(a).signUpWithLicense(code);
  await clientOn(b).signUpWithLicense(code);
  return { code, a, b };
}

/** B's login by the code is refused for the seats: SeatsExhaustedError, with a Retry-After within the lease. */
async function expectSeatTaken(b: GatehouseClient, code: string): Promise<void> {
  const refusal = await b.login({ code }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(refusal).toBeInstanceOf(SeatsExhaustedError);
  const error = refusal as SeatsExhaustedError;
  expect([error.status, error.code]).toEqual([403, 'SEATS_EXHAUSTED']);
  expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(error.retryAfterSeconds).toBeLessThanOrEqual(LEASE_MS / 1000);
}

/** A client in a node process of its own, on the compiled SDK: it logs in by the code and
 * heartbeats, one beat per `beat` line on its stdin; each beat answers `beat scheduled` (or
 * `lost <code>` when refused). */
function childClient(code: string, hardwareId: string): { child: ChildProcessWithoutNullStreams; nextLine: () => Promise<string> } {
  const script = `
    const { createInterface } = await import('node:readline');
    const { GatehouseClient } = await import(process.env.SDK_URL);
    const env = process.env;
    const client = new GatehouseClient({ baseUrl: env.BASE, apiKey: env.API_KEY, apiSecret: env.API_SECRET, hardwareId: env.HARDWARE_ID });
    await client.login({ code: env.CODE });
    let pending = null;
    const schedule = (beat) => { pending = beat; return () => { if (pending === beat) pending = null; }; };
    await client.startHeartbeat({ schedule, onLeaseLost: (e) => console.log('lost ' + e.code) });
    console.log('beating');
    for await (const line of createInterface({ input: process.stdin })) {
      const beat = pending;
      pending = null;
      await beat();
      if (pending !== null) console.log('beat scheduled');
    }
  `;
  const env = { ...process.env, SDK_URL: pathToFileURL(compiledClient).href, BASE: base, API_KEY: credentials.api_key, API_SECRET: credentials.api_secret, HARDWARE_ID: hardwareId, CODE: code };
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env });
  const stderr: string[] = [];
  child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const next = await lines.next();
    if (next.done === true) throw new Error(`the client process ended: ${stderr.join('')}`);
    return next.value;
  };
  return { child, nextLine };
}

describe('a floating seat with the SDK heartbeat', () => {
  it('heartbeat keeps a floating seat: A holds it past two intervals, again and again, and B is refused throughout', async () => {
    const { code, a, b } = await sharedSeat();
    const timer = manualSchedule();
    const lost: unknown[] = [];
    const first = clientOn(a);
    const second = clientOn(b);
    await first.login({ code });
    const lease = await first.startHeartbeat({ schedule: timer.schedule, onLeaseLost: (e) => lost.push(e) });
    expect(Date.parse(lease.lease_expires_at) - Date.parse(lease.server_time)).toBe(LEASE_MS);
    await expectSeatTaken(second, code);
    const start = t.clock.now();
    // Eight intervals: past two intervals four times over, a beat each interval.
    for (let i = 0; i < 8; i++) {
      t.clock.advance(INTERVAL_S * 1000);
      await timer.fire();
      await expectSeatTaken(second, code);
    }
    expect(t.clock.now() - start).toBeGreaterThanOrEqual(4 * LEASE_MS);
    expect(lost).toEqual([]);
    expect(timer.pendingDelay()).toBe(INTERVAL_S * 1000);
    expect((await first.appContext()).user).not.toBeNull();
    // Handing the seat back: B gets it at once.
    await first.logout();
    await second.login({ code });
    await second.logout();
  });

  it("a killed client's seat frees itself: A in a child process beats, is killed with SIGKILL, and two intervals on B gets in", async () => {
    const { code, a, b } = await sharedSeat();
    const second = clientOn(b);
    const { child, nextLine } = childClient(code, a);
    try {
      expect(await nextLine()).toBe('beating');
      await expectSeatTaken(second, code);
      for (let i = 0; i < 5; i++) {
        t.clock.advance(INTERVAL_S * 1000);
        child.stdin.write('beat\n');
        expect(await nextLine()).toBe('beat scheduled');
        await expectSeatTaken(second, code);
      }
      const exited = new Promise<NodeJS.Signals | null>((done) => child.once('exit', (_code, signal) => done(signal)));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      // Nobody beats for the dead client: its seat is held to the end of its last lease, not a moment after.
      await expectSeatTaken(second, code);
      t.clock.advance(LEASE_MS - 1);
      await expectSeatTaken(second, code);
      t.clock.advance(1);
      await second.login({ code });
      expect((await second.appContext()).user).not.toBeNull();
      await second.logout();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
