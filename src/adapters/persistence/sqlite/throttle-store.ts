// Credential-check throttling. Reading both counters, deciding with the domain and writing them
// back is one BEGIN IMMEDIATE transaction, so parallel guesses (in any process) are counted one
// after another and cannot pass the limits.
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
import type { HotReads } from './hot-reads.js';
import { authAccountCounters, authIpCounters } from './schema.js';

// The reads run on the connection, so inside `immediate` they read within its transaction.
function readAccount(reads: HotReads, applicationId: string, accountKey: string): AccountCounter {
  return reads.accountCounter.get({ applicationId, accountKey }) ?? freshAccountCounter;
}

function readIp(reads: HotReads, applicationId: string, ip: string): IpCounter | null {
  return reads.ipCounter.get({ applicationId, ip }) ?? null;
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

export function throttleStore({ db, reads, immediate }: Connection): ThrottleStore {
  return {
    async reserveAuthAttempt({ applicationId, accountKey, ip, now }, limits) {
      return immediate((tx) => {
        // The address is checked first: a flooding client gets RATE_LIMITED without its guesses
        // locking the accounts it names. Both decisions precede any write, so a refusal writes nothing.
        const nextIp = reserveIpAttempt(readIp(reads, applicationId, ip), limits.ipFailureLimit, now);
        const account = accountKey === null ? null : reserveAccountAttempt(readAccount(reads, applicationId, accountKey), limits.lockoutThreshold, now);
        if (account?.kind === 'busy') return 'busy' as const;
        writeIp(tx, applicationId, ip, nextIp);
        if (account !== null && accountKey !== null) writeAccount(tx, applicationId, accountKey, account.next);
        return 'reserved' as const;
      });
    },
    async settleAuthAttempt({ applicationId, accountKey, ip, now }, outcome, limits) {
      immediate((tx) => {
        if (accountKey !== null) {
          const settled = settleAccountAttempt(readAccount(reads, applicationId, accountKey), outcome, limits.lockoutThreshold, now);
          writeAccount(tx, applicationId, accountKey, settled);
        }
        if (outcome === 'success') writeIp(tx, applicationId, ip, ipAfterSuccess(readIp(reads, applicationId, ip), now));
      });
    },
    async readThrottle(applicationId, accountKey, ip) {
      return db.transaction(() => ({ account: readAccount(reads, applicationId, accountKey), ip: readIp(reads, applicationId, ip) }));
    },
  };
}
