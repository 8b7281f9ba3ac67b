// Steps on one counter row take turns within a process: run together, eight logins from one address
// read the same values and all but one lose their compare-and-set and decide again. The plain store
// is correct without the turns (store/counter-swap.ts); they only spare the lost rounds.
import type { Store } from '../../../application/ports/store.js';

/** Runs work keyed alike one piece at a time, in call order; different keys run side by side. A
 * piece that fails does not hold up the next. Keys are dropped once their last piece is done. */
export function serialLanes(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<void>>();
  return (key, work) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work);
    // Settles once `run` has, whatever its outcome; the key goes unless a later piece queued behind it.
    const ended = () => {
      if (tails.get(key) === tail) tails.delete(key);
    };
    const tail = run.then(ended, ended);
    tails.set(key, tail);
    return run;
  };
}

/** `store` with its steps on each address's counter row (a login's or a redemption's transaction
 * that settles a turn included), each application's sign-up counters and each user's variable
 * writes taking turns in this process. */
export function takingTurns(store: Store): Store {
  const lanes = serialLanes();
  const address = ({ applicationId, ip }: { applicationId: string; ip: string }) => `address\n${applicationId}\n${ip}`;
  return {
    ...store,
    reserveAuthAttempt: (attempt, limits) => lanes(address(attempt), () => store.reserveAuthAttempt(attempt, limits)),
    settleAuthAttempt: (attempt, outcome, limits) => lanes(address(attempt), () => store.settleAuthAttempt(attempt, outcome, limits)),
    openSession: (input, actor) => (input.turn === undefined ? store.openSession(input, actor) : lanes(address(input.turn.attempt), () => store.openSession(input, actor))),
    redeemWithTurns: (input, actor) => lanes(address(input.password.attempt), () => store.redeemWithTurns(input, actor)),
    reserveSignUp: (slot, limits) => lanes(`sign-ups\n${slot.applicationId}`, () => store.reserveSignUp(slot, limits)),
    releaseSignUp: (slot, limits) => lanes(`sign-ups\n${slot.applicationId}`, () => store.releaseSignUp(slot, limits)),
    reserveVariableWrite: (slot, limit) => lanes(`variable-writes\n${slot.applicationId}\n${slot.userId}`, () => store.reserveVariableWrite(slot, limit)),
  };
}
