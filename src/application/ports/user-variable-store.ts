// Variables of one end user (docs/api.md, User variables). Every method is scoped by application and
// user, so one user's (or application's) variables are never reached through another's.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { Instant } from '../../domain/time.js';
import type { UserVariableRecord } from '../records.js';

export interface UserVariableStore {
  /** The user's variables, by name. */
  listUserVariables(applicationId: string, userId: string): Promise<UserVariableRecord[]>;
  findUserVariable(applicationId: string, userId: string, name: string): Promise<UserVariableRecord | null>;
  /** ATOMIC, under the user's row lock so parallel writes cannot pass the limits: creates or replaces
   * the variable, refusing a new one past `max` (VALIDATION_FAILED) or the byte cap (assertRoomFor*
   * of the domain). USER_NOT_FOUND when the user is not the application's. */
  putUserVariable(variable: UserVariableRecord, max: number, actor: Actor): Promise<UserVariableRecord>;
  /** False when the user has no such variable. */
  deleteUserVariable(applicationId: string, userId: string, name: string, now: Instant, actor: Actor): Promise<boolean>;
}
