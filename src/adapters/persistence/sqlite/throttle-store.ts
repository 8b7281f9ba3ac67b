// Credential-check throttling. Reading both counters, deciding with the domain and writing them
// back is one BEGIN IMMEDIATE transaction, so parallel guesses (in any process) are counted one
// after another and cannot pass the limits.
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
import type { Connection, Db } from './db.js';
import { authAccountCounters, authIpCounters } from './schema.js';

function readAccount(tx: Db, applicationId: string, accountKey: string): AccountCounter {
  const row = tx
    .select({
      failures: authAccountCounters.failures,
      lockedUntil: authAccountCounters.lockedUntil,
      lockouts: authAccountCounters.lockouts,
      inFlight: authAccountCounters.inFlight,
      inFlightUntil: authAccountCounters.inFlightUntil,
    })
    .from(authAccountCounters)
    .where(and(eq(authAccountCounters.applicationId, applicationId), eq(authAccountCounters.accountKey, accountKey)))
    .get();
  return row ?? freshAccountCounter;
}

function readIp(tx: Db, applicationId: string, ip: string): IpCounter | null {
  const row = tx
    .select({ windowStart: authIpCounters.windowStart, failures: authIpCounters.failures })
    .from(authIpCounters)
    .where(and(eq(authIpCounters.applicationId, applicationId), eq(authIpCounters.ip, ip)))
    .get();
  return row ?? null;
}

function writeAccount(tx: Db, applicationId: string, accountKey: string, c: AccountCounter): void {
  const values = { failures: c.failures, lockedUntil: c.lockedUntil, lockouts: c.lockouts, inFlight: c.inFlight, inFlightUntil: c.inFlightUntil };
  tx.insert(authAccountCounters)
    .values({ applicationId, accountKey, ...values })
    .onConflictDoUpdate({ target: [authAccountCounters.applicationId, authAccountCounters.accountKey], set: values })
    .run();
}

function writeIp(tx: Db, applicationId: string, ip: string, c: IpCounter): void {
  const values = { windowStart: c.windowStart, failures: c.failures };
  tx.insert(authIpCounters)
    .values({ applicationId, ip, ...values })
    .onConflictDoUpdate({ target: [authIpCounters.applicationId, authIpCounters.ip], set: values })
    .run();
}

export function throttleStore({ db, immediate }: Connection): ThrottleStore {
  return {
    async reserveAuthAttempt({ applicationId, accountKey, ip, now }, limits) {
      return immediate((tx) => {
        // The address is checked first: a flooding client gets RATE_LIMITED without its guesses
        // locking the accounts it names. Both decisions precede any write, so a refusal writes nothing.
        const nextIp = reserveIpAttempt(readIp(tx, applicationId, ip), limits.ipFailureLimit, now);
        const account = accountKey === null ? null : reserveAccountAttempt(readAccount(tx, applicationId, accountKey), limits.lockoutThreshold, now);
        if (account?.kind === 'busy') return 'busy' as const;
        writeIp(tx, applicationId, ip, nextIp);
        if (account !== null && accountKey !== null) writeAccount(tx, applicationId, accountKey, account.next);
        return 'reserved' as const;
      });
    },
    async settleAuthAttempt({ applicationId, accountKey, ip, now }, outcome, limits) {
      immediate((tx) => {
        if (accountKey !== null) {
          const settled = settleAccountAttempt(readAccount(tx, applicationId, accountKey), outcome, limits.lockoutThreshold, now);
          writeAccount(tx, applicationId, accountKey, settled);
        }
        if (outcome === 'success') writeIp(tx, applicationId, ip, ipAfterSuccess(readIp(tx, applicationId, ip), now));
      });
    },
    async readThrottle(applicationId, accountKey, ip) {
      return db.transaction((tx) => ({ account: readAccount(tx, applicationId, accountKey), ip: readIp(tx, applicationId, ip) }));
    },
  };
}
