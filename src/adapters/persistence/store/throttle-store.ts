// Credential-check throttling. Each reservation or settlement makes sure both counter rows exist
// (INSERT ... ON CONFLICT DO NOTHING), locks them (Dialect.locked), decides with the domain and
// writes them back in one transaction, so parallel guesses (in any instance or process) are
// counted one after another and cannot pass the limits.
import { and, eq } from 'drizzle-orm';
import type { ThrottleStore } from '../../../application/ports.js';
import {
  type AccountCounter,
  freshAccountCounter,
  type IpCounter,
  ipAfterSuccess,
  reserveAccountAttempt,
  reserveIpAttempt,
  settleAccountAttempt,
} from '../../../domain/auth-throttle.js';
import type { Instant } from '../../../domain/time.js';
import type { Db, Dialect } from '../dialect.js';

/** Thrown inside a reservation to roll back the rows it ensured when the answer is 'busy'. */
class Busy extends Error {}

export function throttleStore(d: Dialect): ThrottleStore {
  const { authAccountCounters, authIpCounters } = d.t;
  const accountOf = (applicationId: string, accountKey: string) =>
    and(eq(authAccountCounters.applicationId, applicationId), eq(authAccountCounters.accountKey, accountKey));
  const ipOf = (applicationId: string, ip: string) => and(eq(authIpCounters.applicationId, applicationId), eq(authIpCounters.ip, ip));

  async function readAccount(tx: Db, applicationId: string, accountKey: string, lock = false): Promise<AccountCounter> {
    const query = tx
      .select({
        failures: authAccountCounters.failures,
        lockedUntil: authAccountCounters.lockedUntil,
        lockouts: authAccountCounters.lockouts,
        inFlight: authAccountCounters.inFlight,
        inFlightUntil: authAccountCounters.inFlightUntil,
      })
      .from(authAccountCounters)
      .where(accountOf(applicationId, accountKey));
    const [row] = lock ? await d.locked(query) : await query;
    return row ?? freshAccountCounter;
  }

  async function readIp(tx: Db, applicationId: string, ip: string, lock = false): Promise<IpCounter | null> {
    const query = tx
      .select({ windowStart: authIpCounters.windowStart, failures: authIpCounters.failures })
      .from(authIpCounters)
      .where(ipOf(applicationId, ip));
    const [row] = lock ? await d.locked(query) : await query;
    return row ?? null;
  }

  /**
   * Creates the account's counter row as a fresh one when missing, so there is a row to lock: a
   * missing row cannot be locked, and two transactions that both saw none would both insert.
   * Creating one with fresh values changes nothing a reader can tell apart.
   */
  async function ensureAccount(tx: Db, applicationId: string, accountKey: string): Promise<void> {
    await tx
      .insert(authAccountCounters)
      .values({ applicationId, accountKey, ...freshAccountCounter })
      .onConflictDoNothing({ target: [authAccountCounters.applicationId, authAccountCounters.accountKey] });
  }

  /**
   * Likewise for the address. A fresh window at `now` is what the domain makes of a missing counter
   * (currentIpCounter), but readThrottle reports a missing one as null: every path that ensures it
   * therefore also writes it, or rolls back.
   */
  async function ensureIp(tx: Db, applicationId: string, ip: string, now: Instant): Promise<void> {
    await tx
      .insert(authIpCounters)
      .values({ applicationId, ip, windowStart: now, failures: 0 })
      .onConflictDoNothing({ target: [authIpCounters.applicationId, authIpCounters.ip] });
  }

  async function writeAccount(tx: Db, applicationId: string, accountKey: string, c: AccountCounter): Promise<void> {
    await tx
      .update(authAccountCounters)
      .set({ failures: c.failures, lockedUntil: c.lockedUntil, lockouts: c.lockouts, inFlight: c.inFlight, inFlightUntil: c.inFlightUntil })
      .where(accountOf(applicationId, accountKey));
  }

  async function writeIp(tx: Db, applicationId: string, ip: string, c: IpCounter): Promise<void> {
    await tx.update(authIpCounters).set({ windowStart: c.windowStart, failures: c.failures }).where(ipOf(applicationId, ip));
  }

  return {
    async reserveAuthAttempt({ applicationId, accountKey, ip, now }, limits) {
      try {
        return await d.transaction(async (tx) => {
          // Rows are always ensured and locked address first, then account, in every transaction
          // that takes both, so two of them cannot deadlock.
          await ensureIp(tx, applicationId, ip, now);
          if (accountKey !== null) await ensureAccount(tx, applicationId, accountKey);
          // The address is checked first: a flooding client gets RATE_LIMITED without its guesses
          // locking the accounts it names. Both decisions precede any write, and a refusal rolls
          // back the rows ensured above, so it writes nothing.
          const nextIp = reserveIpAttempt(await readIp(tx, applicationId, ip, true), limits.ipFailureLimit, now);
          const account =
            accountKey === null ? null : reserveAccountAttempt(await readAccount(tx, applicationId, accountKey, true), limits.lockoutThreshold, now);
          if (account?.kind === 'busy') throw new Busy();
          await writeIp(tx, applicationId, ip, nextIp);
          if (account !== null && accountKey !== null) await writeAccount(tx, applicationId, accountKey, account.next);
          return 'reserved' as const;
        });
      } catch (e) {
        if (e instanceof Busy) return 'busy';
        throw e;
      }
    },
    async settleAuthAttempt({ applicationId, accountKey, ip, now }, outcome, limits) {
      await d.transaction(async (tx) => {
        const settlesIp = outcome === 'success';
        if (settlesIp) await ensureIp(tx, applicationId, ip, now);
        if (accountKey !== null) await ensureAccount(tx, applicationId, accountKey);
        const ipCounter = settlesIp ? await readIp(tx, applicationId, ip, true) : null;
        if (accountKey !== null) {
          const settled = settleAccountAttempt(await readAccount(tx, applicationId, accountKey, true), outcome, limits.lockoutThreshold, now);
          await writeAccount(tx, applicationId, accountKey, settled);
        }
        if (settlesIp) await writeIp(tx, applicationId, ip, ipAfterSuccess(ipCounter, now));
      });
    },
    async readThrottle(applicationId, accountKey, ip) {
      return d.snapshot(async (tx) => ({ account: await readAccount(tx, applicationId, accountKey), ip: await readIp(tx, applicationId, ip) }));
    },
  };
}
