// Credential-check throttling. Reading both counters, deciding with the domain and writing them
// back is one BEGIN IMMEDIATE transaction, so parallel guesses (in any process) are counted one
// after another and cannot pass the limits.
import { and, eq } from 'drizzle-orm';
import type { ThrottleStore } from '../../../application/ports.js';
import {
  type AccountCounter,
  accountAfterSuccess,
  freshAccountCounter,
  type IpCounter,
  ipAfterSuccess,
  reserveAccountAttempt,
  reserveIpAttempt,
} from '../../../domain/auth-throttle.js';
import type { Connection, Db } from './db.js';
import { authAccountCounters, authIpCounters } from './schema.js';

function readAccount(tx: Db, applicationId: string, accountKey: string): AccountCounter {
  const row = tx
    .select({ failures: authAccountCounters.failures, lockedUntil: authAccountCounters.lockedUntil, lockouts: authAccountCounters.lockouts })
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
  const values = { failures: c.failures, lockedUntil: c.lockedUntil, lockouts: c.lockouts };
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
      immediate((tx) => {
        // The address is checked first: a flooding client gets RATE_LIMITED without its guesses
        // locking the accounts it names. Both decisions precede any write, so a refusal writes nothing.
        const nextIp = reserveIpAttempt(readIp(tx, applicationId, ip), limits.ipFailureLimit, now);
        const nextAccount = reserveAccountAttempt(readAccount(tx, applicationId, accountKey), limits.lockoutThreshold, now);
        writeIp(tx, applicationId, ip, nextIp);
        writeAccount(tx, applicationId, accountKey, nextAccount);
      });
    },
    async settleAuthSuccess({ applicationId, accountKey, ip, now }) {
      immediate((tx) => {
        writeAccount(tx, applicationId, accountKey, accountAfterSuccess());
        writeIp(tx, applicationId, ip, ipAfterSuccess(readIp(tx, applicationId, ip), now));
      });
    },
    async readThrottle(applicationId, accountKey, ip) {
      return db.transaction((tx) => ({ account: readAccount(tx, applicationId, accountKey), ip: readIp(tx, applicationId, ip) }));
    },
  };
}
