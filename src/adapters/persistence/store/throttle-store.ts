// Credential-check throttling. Each reservation or settlement makes sure the counter rows exist
// (INSERT ... ON CONFLICT DO NOTHING), locks them (Dialect.locked), decides with the domain and
// writes them back in one transaction, so parallel guesses (in any instance or process) are
// counted one after another and cannot pass the limits.
import { and, count, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { ThrottleStore } from '../../../application/ports/throttle-store.js';
import {
  type AccountCounter,
  type AccountWindow,
  type WindowCounter,
  accountWindowAfterSuccess,
  freshAccountCounter,
  type IpCounter,
  ipAfterSuccess,
  reserveAccountAttempt,
  reserveAccountWindow,
  reserveIpAttempt,
  settleAccountAttempt,
  throttlePurgeCutoffs,
} from '../../../domain/auth-throttle.js';
import { reserveSignUp, SIGN_UP_WINDOW_MS, type SignUpScope, signUpGivenBack } from '../../../domain/sign-up-limits.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, firstRow } from '../dialect.js';

/** Thrown inside a reservation to roll back the rows it ensured when the answer is 'busy'. */
class Busy extends Error {}

/** The three credential-check counters of one (account, address), as stored. */
export interface ThrottleCounters {
  /** The account at this address (fresh while it has no row). */
  account: AccountCounter;
  /** The account's window at every address, or null while it has none. */
  everywhere: AccountWindow | null;
  ip: IpCounter | null;
}

/** Where each credential-check counter row is, and how it is read (with `lock`, locked until the transaction ends). */
function counterRows(d: Dialect) {
  const { authAccountCounters, authAccountWindows, authIpCounters } = d.t;
  const pairOf = (applicationId: string, accountKey: string, ip: string) =>
    and(eq(authAccountCounters.applicationId, applicationId), eq(authAccountCounters.accountKey, accountKey), eq(authAccountCounters.ip, ip));
  const windowOf = (applicationId: string, accountKey: string) =>
    and(eq(authAccountWindows.applicationId, applicationId), eq(authAccountWindows.accountKey, accountKey));
  const ipOf = (applicationId: string, ip: string) => and(eq(authIpCounters.applicationId, applicationId), eq(authIpCounters.ip, ip));

  async function readPair(tx: Db, applicationId: string, accountKey: string, ip: string, lock = false): Promise<AccountCounter> {
    const { failures, lockedUntil, lockouts, inFlight, inFlightUntil } = authAccountCounters;
    const query = tx.select({ failures, lockedUntil, lockouts, inFlight, inFlightUntil }).from(authAccountCounters).where(pairOf(applicationId, accountKey, ip));
    return (await firstRow(d, query, lock)) ?? freshAccountCounter;
  }

  async function readWindow(tx: Db, applicationId: string, accountKey: string, lock = false): Promise<AccountWindow | null> {
    const { windowStart, failures } = authAccountWindows;
    return firstRow(d, tx.select({ windowStart, failures }).from(authAccountWindows).where(windowOf(applicationId, accountKey)), lock);
  }

  async function readIp(tx: Db, applicationId: string, ip: string, lock = false): Promise<IpCounter | null> {
    const { windowStart, failures } = authIpCounters;
    return firstRow(d, tx.select({ windowStart, failures }).from(authIpCounters).where(ipOf(applicationId, ip)), lock);
  }

  return { pairOf, windowOf, ipOf, readPair, readWindow, readIp };
}

/**
 * The counters of (account, address) as stored, read in one snapshot. Not on the ThrottleStore
 * port: nothing in production lists throttle state, which shows only in the port's refusals. The
 * tests read it here, over the dialect the store under test was opened with, to check exact counts.
 */
export async function readThrottleCounters(d: Dialect, applicationId: string, accountKey: string, ip: string): Promise<ThrottleCounters> {
  const { readPair, readWindow, readIp } = counterRows(d);
  return d.snapshot(async (tx) => ({
    account: await readPair(tx, applicationId, accountKey, ip),
    everywhere: await readWindow(tx, applicationId, accountKey),
    ip: await readIp(tx, applicationId, ip),
  }));
}

export function throttleStore(d: Dialect): ThrottleStore {
  const { authAccountCounters, authAccountWindows, authIpCounters, signUpCounters } = d.t;
  const { pairOf, windowOf, ipOf, readPair, readWindow, readIp } = counterRows(d);

  /**
   * Creates the (account, address) counter row as a fresh one when missing, so there is a row to
   * lock: a missing row cannot be locked, and two transactions that both saw none would both
   * insert. Creating one with fresh values changes nothing a reader can tell apart.
   */
  async function ensurePair(tx: Db, applicationId: string, accountKey: string, ip: string, now: Instant): Promise<void> {
    await tx
      .insert(authAccountCounters)
      .values({ applicationId, accountKey, ip, ...freshAccountCounter, touchedAt: now })
      .onConflictDoNothing({ target: [authAccountCounters.applicationId, authAccountCounters.accountKey, authAccountCounters.ip] });
  }

  /**
   * Likewise for the windowed counters. A fresh window at `now` is what the domain makes of a
   * missing counter, but readThrottleCounters reports a missing one as null: every path that
   * ensures one therefore also writes it, or rolls back.
   */
  async function ensureWindow(tx: Db, applicationId: string, accountKey: string, now: Instant): Promise<void> {
    await tx
      .insert(authAccountWindows)
      .values({ applicationId, accountKey, windowStart: now, failures: 0 })
      .onConflictDoNothing({ target: [authAccountWindows.applicationId, authAccountWindows.accountKey] });
  }

  async function ensureIp(tx: Db, applicationId: string, ip: string, now: Instant): Promise<void> {
    await tx
      .insert(authIpCounters)
      .values({ applicationId, ip, windowStart: now, failures: 0 })
      .onConflictDoNothing({ target: [authIpCounters.applicationId, authIpCounters.ip] });
  }

  async function writePair(tx: Db, applicationId: string, accountKey: string, ip: string, c: AccountCounter, now: Instant): Promise<void> {
    await tx.update(authAccountCounters).set({ ...c, touchedAt: now }).where(pairOf(applicationId, accountKey, ip));
  }

  async function writeWindow(tx: Db, applicationId: string, accountKey: string, c: AccountWindow): Promise<void> {
    await tx.update(authAccountWindows).set(c).where(windowOf(applicationId, accountKey));
  }

  async function writeIp(tx: Db, applicationId: string, ip: string, c: IpCounter): Promise<void> {
    await tx.update(authIpCounters).set(c).where(ipOf(applicationId, ip));
  }

  const scopeKey = (scope: SignUpScope, address: string) => (scope === 'application' ? 'application' : `address:${address}`);
  const signUpsOf = (applicationId: string, key: string) => and(eq(signUpCounters.applicationId, applicationId), eq(signUpCounters.scope, key));

  /**
   * Ensures, locks, decides and writes the sign-up windows of the application and then of the
   * address (always in that order, so two transactions cannot deadlock). `decide` may throw to
   * refuse, before anything is written.
   */
  async function changeSignUps(
    applicationId: string,
    address: string,
    now: Instant,
    decide: (c: WindowCounter | null, scope: SignUpScope) => WindowCounter,
  ): Promise<void> {
    await d.transaction(async (tx) => {
      const scopes: SignUpScope[] = ['application', 'address'];
      const next: WindowCounter[] = [];
      for (const scope of scopes) {
        const key = scopeKey(scope, address);
        await tx
          .insert(signUpCounters)
          .values({ applicationId, scope: key, windowStart: now, signUps: 0 })
          .onConflictDoNothing({ target: [signUpCounters.applicationId, signUpCounters.scope] });
        const { windowStart, signUps } = signUpCounters;
        const row = await firstRow(d, tx.select({ windowStart, failures: signUps }).from(signUpCounters).where(signUpsOf(applicationId, key)), true);
        next.push(decide(row, scope));
      }
      for (const [i, scope] of scopes.entries()) {
        const c = next[i] as WindowCounter;
        await tx.update(signUpCounters).set({ windowStart: c.windowStart, signUps: c.failures }).where(signUpsOf(applicationId, scopeKey(scope, address)));
      }
    });
  }

  return {
    async reserveAuthAttempt({ applicationId, accountKey, ip, now, familiar }, limits) {
      try {
        return await d.transaction(async (tx) => {
          // Rows are always ensured and locked address, then account window, then (account,
          // address), in every transaction that takes them, so two of them cannot deadlock.
          await ensureIp(tx, applicationId, ip, now);
          if (accountKey !== null) {
            await ensureWindow(tx, applicationId, accountKey, now);
            await ensurePair(tx, applicationId, accountKey, ip, now);
          }
          // The address is checked first: a flooding client gets RATE_LIMITED without its guesses
          // locking the accounts it names. Every decision precedes any write, and a refusal rolls
          // back the rows ensured above, so it writes nothing.
          const nextIp = reserveIpAttempt(await readIp(tx, applicationId, ip, true), limits.ipFailureLimit, now, familiar === true && accountKey !== null);
          let account: { window: AccountWindow; pair: AccountCounter } | null = null;
          if (accountKey !== null) {
            const window = reserveAccountWindow(await readWindow(tx, applicationId, accountKey, true), limits.accountFailureLimit, now);
            const pair = reserveAccountAttempt(await readPair(tx, applicationId, accountKey, ip, true), limits.lockoutThreshold, now);
            if (pair.kind === 'busy') throw new Busy();
            account = { window, pair: pair.next };
          }
          await writeIp(tx, applicationId, ip, nextIp);
          if (account !== null && accountKey !== null) {
            await writeWindow(tx, applicationId, accountKey, account.window);
            await writePair(tx, applicationId, accountKey, ip, account.pair, now);
          }
          return 'reserved' as const;
        });
      } catch (e) {
        if (e instanceof Busy) return 'busy';
        throw e;
      }
    },
    async settleAuthAttempt({ applicationId, accountKey, ip, now }, outcome, limits) {
      return d.transaction(async (tx) => {
        let locked: { lockedUntil: number } | null = null;
        // A failure stays counted on the windows, where the reservation put it; a success gives
        // it back.
        const success = outcome === 'success';
        if (success) await ensureIp(tx, applicationId, ip, now);
        if (accountKey !== null) {
          if (success) await ensureWindow(tx, applicationId, accountKey, now);
          await ensurePair(tx, applicationId, accountKey, ip, now);
        }
        const ipCounter = success ? await readIp(tx, applicationId, ip, true) : null;
        if (accountKey !== null) {
          const window = success ? await readWindow(tx, applicationId, accountKey, true) : null;
          const pair = await readPair(tx, applicationId, accountKey, ip, true);
          if (success) await writeWindow(tx, applicationId, accountKey, accountWindowAfterSuccess(window, now));
          const next = settleAccountAttempt(pair, outcome, limits.lockoutThreshold, now);
          await writePair(tx, applicationId, accountKey, ip, next, now);
          if (next.lockedUntil !== null && next.lockouts > (pair?.lockouts ?? 0)) locked = { lockedUntil: next.lockedUntil };
        }
        if (success) await writeIp(tx, applicationId, ip, ipAfterSuccess(ipCounter, now));
        return locked;
      });
    },
    async reserveSignUp({ applicationId, address, now }, limits) {
      await changeSignUps(applicationId, address, now, (c, scope) =>
        reserveSignUp(c, scope, scope === 'application' ? limits.perApplication : limits.perAddress, now),
      );
    },
    async releaseSignUp({ applicationId, address, now }) {
      await changeSignUps(applicationId, address, now, (c) => signUpGivenBack(c, now));
    },
    async purgeThrottle(now) {
      const cut = throttlePurgeCutoffs(now);
      const c = authAccountCounters;
      const deleted = await d.write(async (db) => {
        const ips = await db.delete(authIpCounters).where(lt(authIpCounters.windowStart, cut.ipWindowStartedBefore)).returning({ ip: authIpCounters.ip });
        const windows = await db
          .delete(authAccountWindows)
          .where(lt(authAccountWindows.windowStart, cut.accountWindowStartedBefore))
          .returning({ key: authAccountWindows.accountKey });
        const pairs = await db
          .delete(c)
          .where(
            and(
              lte(c.touchedAt, cut.idleSince),
              or(isNull(c.lockedUntil), lte(c.lockedUntil, now)),
              or(eq(c.inFlight, 0), isNull(c.inFlightUntil), lte(c.inFlightUntil, now)),
            ),
          )
          .returning({ key: c.accountKey });
        const signUps = await db
          .delete(signUpCounters)
          .where(lt(signUpCounters.windowStart, now - SIGN_UP_WINDOW_MS + 1))
          .returning({ scope: signUpCounters.scope });
        return ips.length + windows.length + pairs.length + signUps.length;
      });
      const kept = await d.snapshot(async (tx) => {
        let rows = 0;
        for (const counters of [authIpCounters, authAccountWindows, c, signUpCounters]) rows += (await tx.select({ n: count() }).from(counters))[0]?.n ?? 0;
        return rows;
      });
      return { deleted, kept };
    },
    async unlockAccounts(applicationId, accountKeys) {
      if (accountKeys.length === 0) return;
      await d.write(async (db) => {
        await db.delete(authAccountWindows).where(and(eq(authAccountWindows.applicationId, applicationId), inArray(authAccountWindows.accountKey, accountKeys)));
        await db.delete(authAccountCounters).where(and(eq(authAccountCounters.applicationId, applicationId), inArray(authAccountCounters.accountKey, accountKeys)));
      });
    },
  };
}
