// A password change by the user (docs/api.md, POST /change_password): the old password is checked, and
// throttled, exactly as at login; the new one follows the application's password policy; every
// session of the user ends.
import { acceptNewPassword, usernameKey } from '../../domain/credentials-policy.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import { checkPassword, type PasswordCheckDeps } from '../credential-checks.js';
import type { Caller, Deps } from '../deps.js';
import { withPasswordWork } from '../password-work.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord, UserRecord } from '../records.js';
import { assertNotBarred, type UserAccessDeps } from '../user-access.js';
import { type Actor, identified } from '../events/actor.js';

export const notAPasswordUser = () => new DomainError('NOT_A_PASSWORD_USER', 'this account signs in with a license code and has no password');

type ChangePasswordDeps = PasswordCheckDeps & UserAccessDeps & Pick<Deps, 'clock' | 'hasher'> & { store: UserStore };

/** The new password hashed under the application's queue of password work, and set (sessions revoked). */
export async function setNewPassword(
  deps: Pick<Deps, 'clock' | 'hasher'> & { store: UserStore },
  app: ApplicationRecord,
  user: UserRecord,
  newPassword: string,
  actor: Actor,
  field = 'password',
): Promise<boolean> {
  if (user.credentialType !== 'username_password') throw notAPasswordUser();
  const accepted = acceptNewPassword(newPassword, app.settings.passwordMinLength, field);
  const hash = await withPasswordWork(deps, app.id, (work) => work.hash(accepted));
  return deps.store.replacePassword(app.id, user.id, hash, deps.clock.now(), actor);
}

export async function changePassword(
  deps: ChangePasswordDeps,
  app: ApplicationRecord,
  body: { username: string; password: string; new_password: string },
  caller: Caller,
  actor: Actor,
): Promise<void> {
  // Checked before any password work: a new password the policy refuses costs no guess.
  acceptNewPassword(body.new_password, app.settings.passwordMinLength, 'new_password');
  let user: UserRecord;
  try {
    user = await checkPassword(deps, app, body.username, body.password, caller, actor);
  } catch (e) {
    // A license-code user has no password to check: told so once the throttled check has
    // refused (and counted) the attempt like any other.
    if (isDomainError(e) && e.code === 'INVALID_CREDENTIALS') {
      const claimed = await deps.store.findUserByUsernameKey(app.id, usernameKey(body.username));
      if (claimed?.credentialType === 'license_code') throw notAPasswordUser();
    }
    throw e;
  }
  // A banned or timed-out account cannot change itself; a lapsed membership still may.
  const acting = identified(actor, user.id);
  await assertNotBarred(deps, app, user, caller, acting, null);
  if (!(await setNewPassword(deps, app, user, body.new_password, acting, 'new_password'))) {
    throw new DomainError('INVALID_CREDENTIALS', 'invalid credentials');
  }
}
