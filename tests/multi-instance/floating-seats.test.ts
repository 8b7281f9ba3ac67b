// Issue 43, acceptance 2: floating seats counted atomically across instances. Two server processes
// on one PostgreSQL database; 30 holders of a 5-seat floating license log in in parallel, spread
// over both, and exactly 5 get a seat (docs/machines.md, "Floating seats"). PostgreSQL only.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/postgres-databases.js';
import { baseServerEnv, buildServer, killServer, runCli, startServerProcess, type Build, type ServerProcess } from '../support/server-process.js';
import { request } from './json-request.js';

const postgresUrl = process.env['GATEHOUSE_TEST_DATABASE_URL'];
if (!postgresUrl) console.warn('GATEHOUSE_TEST_DATABASE_URL is not set: the two-instance floating seat test is skipped');
const START_LIMIT_MS = 60_000;

describe.skipIf(!postgresUrl)('floating seats over two instances on postgres', () => {
  let build: Build | null = null;
  let db: { url: string; drop: () => Promise<void> } | null = null;
  let a: ServerProcess | null = null;
  let b: ServerProcess | null = null;
  const dirs: string[] = [];
  let owner: Record<string, string> = {};
  const pick = (i: number) => (i % 2 === 0 ? a : b)!.base;

  beforeAll(async () => {
    [build, db] = await Promise.all([buildServer(), freshDatabase()]);
    const shared = {
      DATABASE_URL: db.url,
      GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64'),
      // All clients are 127.0.0.1: the per-address limits are not what is under test.
      GATEHOUSE_IP_FAILURE_LIMIT: '100000',
      GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000',
      LOG_LEVEL: 'warn',
    };
    const envFor = () => {
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-floating-pg-'));
      dirs.push(dir);
      return baseServerEnv({ ...shared, GATEHOUSE_DATA_DIR: dir });
    };
    const [envA, envB] = [envFor(), envFor()];
    const created = await runCli(build.outDir, envA, ['owner', 'create', '--init', '--email', 'floating@example.com', '--password', 'floating-owner-password-1']);
    owner = { authorization: `Bearer ${(JSON.parse(created) as { token: string }).token}` };
    a = await startServerProcess(build.outDir, envA, START_LIMIT_MS);
    b = await startServerProcess(build.outDir, envB, START_LIMIT_MS);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([killServer(a), killServer(b)]);
    await db?.drop();
    build?.remove();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('30 parallel logins on a 5-seat floating license over both instances admit exactly 5', async () => {
    const app = await request(pick(0), 'POST', '/api/console/applications', owner, { name: 'Floating', device_auth: true, heartbeat_seconds: 60 });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const appId = app.body.application.id as string;
    const headers = { 'x-api-key': app.body.credentials.api_key as string, 'x-api-secret': app.body.credentials.api_secret as string };
    const plan = await request(pick(1), 'POST', `/api/console/applications/${appId}/plans`, owner, { name: 'Floating 5', kind: 'base', duration_minutes: 600, seats: 5, floating: true });
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    const issued = await request(pick(0), 'POST', `/api/console/applications/${appId}/licenses`, owner, { count: 1, plan_id: plan.body.id });
    const code = issued.body.licenses[0].code as string;
    const machines = Array.from({ length: 30 }, (_, i) => `floating-hw-${i}`);
    for (const [i, hardwareId] of machines.entries()) {
      const res = await request(pick(i), 'POST', '/api/integration/sign_up_with_license_code', headers, { code, hardware_id: hardwareId });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const answers = await Promise.all(machines.map((hardwareId, i) => request(pick(i), 'POST', '/api/integration/auth/login', headers, { credentials: { code }, hardware_id: hardwareId })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = answers.filter((r) => r.status !== 200);
    expect(
      refused.every((r) => r.status === 403 && r.body.error_code === 'SEATS_EXHAUSTED'),
      JSON.stringify(refused.map((r) => r.body)),
    ).toBe(true);
    expect(refused.every((r) => Number(r.headers.get('retry-after')) > 0)).toBe(true);
  }, 120_000);
});
