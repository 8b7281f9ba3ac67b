// Borrowing a floating seat for a machine going offline, and giving it back (docs/machines.md,
// "Floating seats"): the session token names the user, the answer is an offline license file.
import { validationError } from '../../domain/errors.js';
import { type Actor, identified } from '../events/actor.js';
import { deviceLimitReached } from '../events/refusals.js';
import { recordingRefusal } from '../events/record-refusal.js';
import type { Caller, Deps } from '../deps.js';
import { authenticateUser, type AuthenticateUserDeps, liveSession } from '../integration/authenticate-user.js';
import { type IssueDeps, type IssuedLicenseFile, signAdmitted } from '../license-files/issue-license-file.js';
import type { FloatingSeatStore } from '../ports/floating-seat-store.js';
import type { ApplicationRecord, SessionRecord, UserRecord } from '../records.js';
import { withSigningKeys } from '../signing-keys.js';
import { notingExhaustedSeats } from './seats-exhausted.js';
import { DomainError, loginRequired } from '../../domain/errors.js';

export type BorrowDeps = IssueDeps & AuthenticateUserDeps & Pick<Deps, 'ids'> & { store: FloatingSeatStore };

/** The session's user, through the same checks as any authenticated request; a session tied to a
 * machine acts for that machine only. */
async function sessionUser(
  deps: BorrowDeps,
  app: ApplicationRecord,
  token: string | undefined,
  hardwareId: string,
  caller: Caller,
  actor: Actor,
): Promise<{ session: SessionRecord; user: UserRecord }> {
  if (token === undefined) throw loginRequired();
  const session = await liveSession(deps, app, token);
  const user = await authenticateUser(deps, app, { bearer: token }, caller, actor);
  if (user === null) throw loginRequired();
  if (session.hardwareId !== null && session.hardwareId !== hardwareId) throw validationError('hardware_id', 'must be the machine of this session');
  return { session, user };
}

/** POST /api/integration/borrow: holds a seat for the machine until the borrow's end and answers a
 * license file bound to it, expiring then. */
export async function borrowSeat(
  deps: BorrowDeps,
  app: ApplicationRecord,
  token: string | undefined,
  body: { hardware_id: string; minutes: number },
  caller: Caller,
  actor: Actor,
): Promise<IssuedLicenseFile> {
  const { user } = await sessionUser(deps, app, token, body.hardware_id, caller, actor);
  const acting = identified(actor, user.id);
  const key = (await withSigningKeys(deps, app)).signing.response;
  if (key === null) throw new Error(`application ${app.id} has no response signing key`);
  const now = deps.clock.now();
  const fileId = deps.ids.uuid();
  const input = {
    applicationId: app.id,
    userId: user.id,
    hardwareId: body.hardware_id,
    newDeviceId: app.settings.deviceAuth ? deps.ids.uuid() : null,
    capDefaults: app.settings,
    minutes: body.minutes,
    borrowId: deps.ids.uuid(),
    fileId,
    now,
  };
  const who = { applicationId: app.id, userId: user.id, hardwareId: body.hardware_id };
  const borrow = () => notingExhaustedSeats(deps, who, () => deps.store.borrowSeat(input, acting), acting);
  const admitted = await recordingRefusal(deps, 'DEVICE_LIMIT_REACHED', () => deviceLimitReached(app.id, user, body.hardware_id), borrow, acting);
  return signAdmitted(deps, key, app, { id: fileId, hardwareId: body.hardware_id, issuedAt: now }, admitted);
}

/** POST /api/integration/return: ends the user's borrow of the machine; none live: BORROW_NOT_FOUND. */
export async function returnSeat(deps: BorrowDeps, app: ApplicationRecord, token: string | undefined, body: { hardware_id: string }, caller: Caller, actor: Actor): Promise<void> {
  if (token === undefined) throw loginRequired();
  const user = await authenticateUser(deps, app, { bearer: token }, caller, actor);
  if (user === null) throw loginRequired();
  const returned = await deps.store.returnSeat({ applicationId: app.id, userId: user.id, hardwareId: body.hardware_id, now: deps.clock.now() }, identified(actor, user.id));
  if (!returned) throw new DomainError('BORROW_NOT_FOUND', 'this machine holds no borrowed seat of yours');
}
