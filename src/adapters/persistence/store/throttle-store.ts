// Credential-check throttling, by compare-and-set (counter-swap.ts; docs/choices.md, "Throttle counters").
import { and, count, eq, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { AuthAttempt, SucceededTurn, ThrottleStore } from '../../../application/ports/throttle-store.js';
import { type WindowCounter, throttlePurgeCutoffs } from '../../../domain/auth-throttle.js';
import { passwordThenCode, type RedemptionTurns, reserveTurn, settleTurn, type TurnChanges, type TurnCounters } from '../../../domain/auth-turns.js';
import { networkBucket } from '../../../domain/ip-address.js';
import { countInHourWindow, filledByThis, reserveSignUp, SIGN_UP_WINDOW_MS, type SignUpLimits, type SignUpScope, signUpGivenBack } from '../../../domain/sign-up-limits.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, firstRow } from '../dialect.js';
import { serialLanes } from '../serial-lanes.js';
import { type CounterWrite, keyed, swapCounters, swapWithin } from './counter-swap.js';

/** Where each credential-check counter row is, how it is read, and how it is written back. The
 * tests read the counters with it too: nothing on the port lists them (docs/architecture.md, "Persistence notes"). */
export function counterRows(d: Dialect) {
  const { authAccountCounters: a, authAccountWindows: w, authIpCounters: i } = d.t;
  const pairFields = { failures: a.failures, lockedUntil: a.lockedUntil, lockouts: a.lockouts, inFlight: a.inFlight, inFlightUntil: a.inFlightUntil };
  const windowFields = { windowStart: w.windowStart, failures: w.failures };
  const ipFields = { windowStart: i.windowStart, failures: i.failures };
  /** The counters as stored, read through `db` (a transaction's handle, or the dialect's reads), each by its primary key. */
  async function read(applicationId: string, accountKey: string | null, ip: string, db: Db = d.db): Promise<TurnCounters> {
    const account = accountKey === null ? null : { applicationId, accountKey };
    const pairKey = { ...account, ip: networkBucket(ip) };
    const [pair, window, ipCounter] = await Promise.all([
      account && firstRow(d, db.select(pairFields).from(a).where(keyed(a, pairKey))),
      account && firstRow(d, db.select(windowFields).from(w).where(keyed(w, account))),
      firstRow(d, db.select(ipFields).from(i).where(keyed(i, { applicationId, ip }))),
    ]);
    return { pair, window, ip: ipCounter };
  }

  /** The rows a turn's changes write, in the order address, window, pair; `before` as read (null: no row). */
  const writesOf = ({ applicationId, accountKey, ip, now }: AuthAttempt, c: TurnCounters, changes: TurnChanges): CounterWrite[] => {
    const writes: CounterWrite[] = [];
    if (changes.ip !== undefined) writes.push({ table: i, key: { applicationId, ip }, before: c.ip && { ...c.ip }, after: { ...changes.ip } });
    if (accountKey === null) return writes;
    if (changes.window !== undefined) writes.push({ table: w, key: { applicationId, accountKey }, before: c.window && { ...c.window }, after: { ...changes.window } });
    const pairKey = { applicationId, accountKey, ip: networkBucket(ip) };
    if (changes.pair !== undefined) writes.push({ table: a, key: pairKey, before: c.pair && { ...c.pair }, after: { ...changes.pair, touchedAt: now } });
    return writes;
  };
  return { read, writesOf };
}

/** The lanes of the steps on each address's counter row, one set per dialect (one store) in this process. */
const addressLanes = new WeakMap<Dialect, ReturnType<typeof serialLanes>>();

/** Runs `work`, a step on the counter row of `attempt`'s address (a transaction that settles a
 * turn included), after the steps on that row queued before it in this process (counter-swap.ts). */
export function inAddressLane<T>(d: Dialect, attempt: Pick<AuthAttempt, 'applicationId' | 'ip'>, work: () => Promise<T>): Promise<T> {
  let lanes = addressLanes.get(d);
  if (lanes === undefined) {
    lanes = serialLanes();
    addressLanes.set(d, lanes);
  }
  return lanes(`address\n${attempt.applicationId}\n${attempt.ip}`, work);
}

/** A redemption's two turns inside `tx` (passwordThenCode of the domain), written with it: throws
 * CountersMoved as settleSucceededTurn does. Both attempts count on one address counter. */
export async function passwordThenCodeWithin(d: Dialect, tx: Db, { attempt, limits }: SucceededTurn, code: { attempt: AuthAttempt; found: boolean }): Promise<RedemptionTurns> {
  const rows = counterRows(d);
  const [password, codeOwn] = await Promise.all([
    rows.read(attempt.applicationId, attempt.accountKey, attempt.ip, tx),
    rows.read(code.attempt.applicationId, code.attempt.accountKey, code.attempt.ip, tx),
  ]);
  const c = { ...codeOwn, ip: password.ip };
  const turns = passwordThenCode(password, c, code.found, limits, attempt.now);
  const writes = rows.writesOf(attempt, password, turns.password);
  if (turns.kind === 'settled') writes.push(...rows.writesOf({ ...code.attempt, now: attempt.now }, c, turns.code));
  await swapWithin(tx, writes);
  return turns;
}

/** Settles a turn that succeeded inside `tx`, the transaction of the write it let through; throws CountersMoved. */
export async function settleSucceededTurn(d: Dialect, tx: Db, { attempt, limits }: SucceededTurn): Promise<void> {
  const rows = counterRows(d);
  const c = await rows.read(attempt.applicationId, attempt.accountKey, attempt.ip, tx);
  await swapWithin(tx, rows.writesOf(attempt, c, settleTurn(c, attempt.accountKey !== null, 'success', limits, attempt.now).changes));
}

export function throttleStore(d: Dialect): ThrottleStore {
  const { authAccountCounters, authAccountWindows, authIpCounters, signUpCounters } = d.t;
  const { read, writesOf } = counterRows(d);
  // Steps on one application's sign-up row take turns in this process.
  const inLane = serialLanes();
  const signUpFields = { windowStart: signUpCounters.windowStart, signUps: signUpCounters.signUps };
  // Primary key (application_id, scope).
  const signUpWindow = (key: { applicationId: string; scope: string }) => d.db.select(signUpFields).from(signUpCounters).where(keyed(signUpCounters, key));
  /** Decides the sign-up windows of the address and (when it is limited) of the application
   * together; `decide` may throw to refuse, before anything is written. Returns when the
   * application's window ends if this change filled it, else null. */
  async function changeSignUps(
    applicationId: string,
    address: string,
    limits: SignUpLimits,
    now: Instant,
    decide: (c: WindowCounter | null, scope: SignUpScope) => WindowCounter,
  ): Promise<Instant | null> {
    const scopes = [...(limits.perApplication === null ? [] : [{ scope: 'application' as const, key: 'application' }]), { scope: 'address' as const, key: `address:${address}` }];
    const readWindows = () => Promise.all(scopes.map(async ({ key }) => (await signUpWindow({ applicationId, scope: key }))[0] ?? null));
    return inLane(`sign-ups\n${applicationId}`, () =>
      swapCounters(d, readWindows, (rows) => {
        let filled: Instant | null = null;
        const writes = scopes.map(({ scope, key }, i): CounterWrite => {
          const row = rows[i] ?? null;
          const next = decide(row === null ? null : { windowStart: row.windowStart, failures: row.signUps }, scope);
          const grew = row === null || row.signUps < next.failures;
          if (scope === 'application' && grew && filledByThis(next, limits.perApplication)) filled = next.windowStart + SIGN_UP_WINDOW_MS;
          return { table: signUpCounters, key: { applicationId, scope: key }, before: row, after: { windowStart: next.windowStart, signUps: next.failures } };
        });
        return { answer: filled, writes };
      }),
    );
  }

  return {
    async reserveAuthAttempt(attempt, limits) {
      const { applicationId, accountKey, ip, now, familiar } = attempt;
      const counters = () => read(applicationId, accountKey, ip);
      return inAddressLane(d, attempt, () =>
        swapCounters(d, counters, (c) => {
          // Every decision precedes any write, so a refusal or 'busy' writes nothing.
          const turn = reserveTurn(c, accountKey !== null, limits, now, familiar === true);
          return turn.kind === 'busy' ? { answer: 'busy' as const, writes: [] } : { answer: 'reserved' as const, writes: writesOf(attempt, c, turn.changes) };
        }),
      );
    },
    async settleAuthAttempt(attempt, outcome, limits) {
      const { applicationId, accountKey, ip, now } = attempt;
      const counters = () => read(applicationId, accountKey, ip);
      return inAddressLane(d, attempt, () =>
        swapCounters(d, counters, (c) => {
          const settled = settleTurn(c, accountKey !== null, outcome, limits, now);
          return { answer: settled.lockedUntil === null ? null : { lockedUntil: settled.lockedUntil }, writes: writesOf(attempt, c, settled.changes) };
        }),
      );
    },
    async reserveSignUp({ applicationId, address, now }, limits) {
      const filled = await changeSignUps(applicationId, address, limits, now, (c, scope) =>
        reserveSignUp(c, scope, scope === 'application' ? (limits.perApplication ?? Infinity) : limits.perAddress, now),
      );
      return { applicationFilledUntil: filled };
    },
    async releaseSignUp({ applicationId, address, now }, limits) {
      await changeSignUps(applicationId, address, limits, now, (c) => signUpGivenBack(c, now));
    },
    async reserveVariableWrite({ applicationId, userId, now }, limit) {
      const scope = `variable_writes:${userId}`;
      const readWindow = async () => (await signUpWindow({ applicationId, scope }))[0] ?? null;
      await inLane(`variable-writes\n${applicationId}\n${userId}`, () =>
        swapCounters(d, readWindow, (row) => {
          const next = countInHourWindow(row === null ? null : { windowStart: row.windowStart, failures: row.signUps }, limit, now, 'too many variable writes by this user; try again later');
          const write: CounterWrite = { table: signUpCounters, key: { applicationId, scope }, before: row, after: { windowStart: next.windowStart, signUps: next.failures } };
          return { answer: undefined, writes: [write] };
        }),
      );
    },
    async purgeThrottle(now) {
      const cut = throttlePurgeCutoffs(now);
      const c = authAccountCounters;
      const deleted = await d.write(async (db) => {
        const ips = await db.delete(authIpCounters).where(lt(authIpCounters.windowStart, cut.ipWindowStartedBefore)).returning({ ip: authIpCounters.ip });
        const windows = await db.delete(authAccountWindows).where(lt(authAccountWindows.windowStart, cut.accountWindowStartedBefore)).returning({ key: authAccountWindows.accountKey });
        const idleUnlockedAndFree = and(lte(c.touchedAt, cut.idleSince), or(isNull(c.lockedUntil), lte(c.lockedUntil, now)), or(eq(c.inFlight, 0), isNull(c.inFlightUntil), lte(c.inFlightUntil, now)));
        const pairs = await db.delete(c).where(idleUnlockedAndFree).returning({ key: c.accountKey });
        const windowEnded = lt(signUpCounters.windowStart, now - SIGN_UP_WINDOW_MS + 1);
        const signUps = await db.delete(signUpCounters).where(windowEnded).returning({ scope: signUpCounters.scope });
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
