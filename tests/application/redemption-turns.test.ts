// A redemption's and a login's throttle turns on fakes: what the application hands the store
// after the password work, and how it falls back when the code's turn is not to be had at once.
import { describe, expect, it } from 'vitest';
import { SYSTEM } from '../../src/application/events/actor.js';
import { activateLicense } from '../../src/application/integration/activate-license.js';
import { login } from '../../src/application/integration/login.js';
import type { AuthAttempt } from '../../src/application/ports/throttle-store.js';
import type { RedemptionOutcome, RedemptionWithTurns } from '../../src/application/ports/user-store.js';
import type { OpenSessionInput } from '../../src/application/ports/session-store.js';
import { DomainError } from '../../src/domain/errors.js';
import { makeApp, makeLicense, makeUser, T0 } from '../contract/fixtures.js';

const CODE = '0123456789ABCDEFGHJKMNPQRSTVWX';
const limits = { lockoutThreshold: 5, ipFailureLimit: 20, accountFailureLimit: 50 };

/** Fake deps: every store call is logged by name; the answers are set per test. */
function fakes(answers: { license?: boolean; redeem?: (input: RedemptionWithTurns) => RedemptionOutcome; banned?: boolean; openSession?: () => Promise<unknown> } = {}) {
  const app = makeApp('owner-1', { settings: { ...makeApp('owner-1').settings, deviceAuth: false, tokenAuth: true } });
  const user = makeUser(app.id, { passwordHash: 'hash' });
  const license = makeLicense(app.id);
  const calls: Array<[string, unknown]> = [];
  const log =
    <A extends unknown[], R>(name: string, answer: (...args: A) => R) =>
    (...args: A): R => {
      calls.push([name, args[0]]);
      return answer(...args);
    };
  let n = 0;
  const deps = {
    clock: { now: () => T0 },
    ids: { uuid: () => `id-${++n}` },
    secrets: { digest: (s: string) => `d:${s}`, sameDigest: (a: string, b: string) => a === b },
    limits,
    hasher: {
      admit: () => ({ verify: async () => true, verifyDummy: async () => {}, hash: async () => 'h', done: () => {} }),
      needsRehash: () => false,
    },
    tokens: { issue: async () => 'token' },
    bans: { matching: async () => (answers.banned === true ? [{ type: 'user' as const, value: user.id, id: 'ban-1', propagatedFrom: null, expiresAt: null }] : []) },
    store: {
      reserveAuthAttempt: log('reserveAuthAttempt', async (_a: AuthAttempt) => 'reserved' as const),
      settleAuthAttempt: log('settleAuthAttempt', async (_a: AuthAttempt, outcome: string) => (calls.push(['outcome', outcome]), null)),
      findUserByUsernameKey: async () => user,
      findLicenseByDigest: async () => (answers.license === false ? null : license),
      redeemWithTurns: log('redeemWithTurns', async (input: RedemptionWithTurns) => answers.redeem?.(input) ?? ({ kind: 'redeemed', adjustment: { id: 'adj' } } as unknown as RedemptionOutcome)),
      activateLicense: log('activateLicense', async () => ({ id: 'adj-after' })),
      openSession: log('openSession', async (_input: OpenSessionInput) => (answers.openSession === undefined ? { deviceRegistered: false } : answers.openSession())),
      recordEvent: log('recordEvent', async () => {}),
      addBans: log('addBans', async () => []),
      getUserDetails: async () => ({ devices: [] }),
      findUserPlans: async () => ({ base: null, addOns: [] }),
      redeemedLicenseIds: async () => [],
      hasSignedInFrom: async () => false,
      hasDevice: async () => false,
    },
  };
  const names = () => calls.map(([name]) => name);
  return { deps: deps as never, app, user, license, calls, names };
}

const caller = { ip: '203.0.113.7' };
const body = (user: { username: string }) => ({ code: CODE, username: user.username, password: 'correct horse' });

describe('a redemption after the password work', () => {
  it('hands the store both turns and the redemption in one call', async () => {
    const f = fakes();
    expect(await activateLicense(f.deps, f.app, body(f.user), caller, SYSTEM)).toEqual({ id: 'adj' });
    expect(f.names()).toEqual(['reserveAuthAttempt', 'redeemWithTurns']);
    const input = f.calls[1]![1] as RedemptionWithTurns;
    expect(input.password.attempt).toMatchObject({ applicationId: f.app.id, accountKey: `user:${f.user.usernameKey}`, ip: '203.0.113.7' });
    expect(input.code).toMatchObject({ attempt: { accountKey: `activation:${f.user.usernameKey}`, ip: '203.0.113.7' }, found: true });
    expect(input.redemption).toMatchObject({ applicationId: f.app.id, userId: f.user.id, licenseDigest: expect.any(String) as string });
  });

  it('an unknown code settles both turns without a redemption, then is refused', async () => {
    const f = fakes({ license: false, redeem: () => ({ kind: 'settled', lockedUntil: null }) });
    await expect(activateLicense(f.deps, f.app, body(f.user), caller, SYSTEM)).rejects.toMatchObject({ code: 'LICENSE_INVALID' });
    expect((f.calls[1]![1] as RedemptionWithTurns).redemption).toBeNull();
    expect(f.names()).toEqual(['reserveAuthAttempt', 'redeemWithTurns']);
  });

  it('a code failure that locked the account records the lockout', async () => {
    const f = fakes({ license: false, redeem: () => ({ kind: 'settled', lockedUntil: T0 + 60_000 }) });
    await expect(activateLicense(f.deps, f.app, body(f.user), caller, SYSTEM)).rejects.toMatchObject({ code: 'LICENSE_INVALID' });
    expect(f.names()).toEqual(['reserveAuthAttempt', 'redeemWithTurns', 'recordEvent']);
  });

  it("a banned request settles the turns without a redemption, then the ban's refusal is made", async () => {
    const f = fakes({ banned: true, redeem: () => ({ kind: 'settled', lockedUntil: null }) });
    await expect(activateLicense(f.deps, f.app, body(f.user), caller, SYSTEM)).rejects.toMatchObject({ code: 'BANNED' });
    expect((f.calls[1]![1] as RedemptionWithTurns).redemption).toBeNull();
    // The refusal's audit entry (its budget reserved on the ban-refusal scope), then the license presented banned by propagation.
    expect(f.names()).toEqual(['reserveAuthAttempt', 'redeemWithTurns', 'reserveAuthAttempt', 'recordEvent', 'addBans']);
    expect(f.calls[4]![1]).toBe(f.app.id);
  });

  it("a code whose turn is busy is checked on its own afterwards, as without the step's turn", async () => {
    const f = fakes({ redeem: () => ({ kind: 'busy' }) });
    expect(await activateLicense(f.deps, f.app, body(f.user), caller, SYSTEM)).toEqual({ id: 'adj-after' });
    expect(f.names()).toEqual(['reserveAuthAttempt', 'redeemWithTurns', 'reserveAuthAttempt', 'settleAuthAttempt', 'outcome', 'activateLicense']);
    expect(f.calls[2]![1]).toMatchObject({ accountKey: `activation:${f.user.usernameKey}` });
    expect(f.calls[4]![1]).toBe('success');
  });
});

describe('a login after the password work', () => {
  it('settles its turn in the session transaction', async () => {
    const f = fakes();
    await login(f.deps, f.app, { credentials: { username: f.user.username, password: 'correct horse' } }, caller, SYSTEM);
    expect(f.names()).toEqual(['reserveAuthAttempt', 'openSession']);
    expect((f.calls[1]![1] as OpenSessionInput).turn).toEqual({ attempt: expect.objectContaining({ accountKey: `user:${f.user.usernameKey}` }) as AuthAttempt, limits });
  });

  it('refused after the check, settles its turn as the success it was', async () => {
    const f = fakes({ openSession: () => Promise.reject(new DomainError('SESSION_LIMIT_REACHED', 'full')) });
    await expect(login(f.deps, f.app, { credentials: { username: f.user.username, password: 'correct horse' } }, caller, SYSTEM)).rejects.toMatchObject({ code: 'SESSION_LIMIT_REACHED' });
    expect(f.names()).toEqual(['reserveAuthAttempt', 'openSession', 'settleAuthAttempt', 'outcome']);
    expect(f.calls[3]![1]).toBe('success');
  });
});
