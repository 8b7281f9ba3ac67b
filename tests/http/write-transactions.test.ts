// How much database work a password login and a license redemption by an existing member cost,
// counted at the drivers (support/database-work.ts) on the test's backend. docs/performance.md,
// "Database work of a login and a redemption", has the figures and the targets.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countDatabaseWork, countSqliteStatements, type DatabaseWork } from '../support/database-work.js';
import { createApplication, createLicenses, startTestApp, type TestApp, testBackend } from '../support/test-app.js';
import { call, login, member, type TestApplication } from '../support/integration.js';

// Every postgres.js client of this file reports its statements (its `debug` hook).
vi.mock('postgres', async (importOriginal) => {
  const actual = await importOriginal<{ default: (...args: unknown[]) => unknown }>();
  const { pgStatementSeen: report } = await import('../support/database-work.js');
  let clients = 0;
  const open = (...args: unknown[]) => {
    const client = clients++;
    const options = (typeof args[0] === 'object' && args[0] !== null ? args[0] : (args[1] ?? {})) as Record<string, unknown>;
    const debug = (connection: number, text: string) => report(client, connection, text);
    return typeof args[0] === 'object' && args[0] !== null ? actual.default({ ...options, debug }) : actual.default(args[0], { ...options, debug });
  };
  return { ...actual, default: Object.assign(open, actual.default) };
});
countSqliteStatements();

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: true, default_allowed_devices: 2, default_allowed_sessions: 5 });
});
afterEach(() => t.close());

const HW = { hardware_id: 'HW-1' };
/** Two write transactions each: the throttle's turn before the hash, the rest after it. */
const LOGIN_WRITE_TRANSACTIONS = 2;
const REDEMPTION_WRITE_TRANSACTIONS = 2;
/** The most statements each may make on the test's backend (docs/performance.md has them). */
const STATEMENTS = { sqlite: { login: 26, redemption: 31 }, postgres: { login: 26, redemption: 31 } }[testBackend];

/** A member holding `licenses` redeemed licenses, logged in once on HW-1. */
async function memberHolding(username: string, licenses: number) {
  const u = await member(t, app, username, undefined, 60, HW);
  const more = licenses > 1 ? await createLicenses(t, app.id, licenses - 1, 60) : [];
  for (const code of more) {
    const res = await call(t, app, 'POST', '/activate_license', { code, username, password: u.password, ...HW });
    expect(res.statusCode, res.body).toBe(200);
  }
  expect((await login(t, app, { username, password: u.password }, HW)).statusCode).toBe(200);
  return u;
}

async function redemption(username: string, password: string): Promise<DatabaseWork> {
  const [code] = await createLicenses(t, app.id, 1, 60);
  return countDatabaseWork(async () => {
    const res = await call(t, app, 'POST', '/activate_license', { code, username, password, ...HW });
    expect(res.statusCode, res.body).toBe(200);
  });
}

describe('database work of a login and a redemption', () => {
  it('a password login by a member on a known device', async () => {
    const u = await memberHolding('alice', 1);
    const work = await countDatabaseWork(async () => {
      const res = await login(t, app, { username: 'alice', password: u.password }, HW);
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(work.writes).toBeGreaterThan(0);
    expect(work.writeTransactions).toBeLessThanOrEqual(LOGIN_WRITE_TRANSACTIONS);
    expect(work.statements).toBeLessThanOrEqual(STATEMENTS.login);
  });

  it('a redemption by a member holding 20 licenses, and the same work at 1', async () => {
    const many = await memberHolding('alice', 20);
    const one = await memberHolding('bob', 1);
    const atMany = await redemption('alice', many.password);
    const atOne = await redemption('bob', one.password);
    expect(atMany.writes).toBeGreaterThan(0);
    expect(atMany.writeTransactions).toBeLessThanOrEqual(REDEMPTION_WRITE_TRANSACTIONS);
    expect(atMany.statements).toBeLessThanOrEqual(STATEMENTS.redemption);
    // As many statements whatever the licenses held: none is made a license.
    expect(atMany.statements).toBe(atOne.statements);
  });
});
