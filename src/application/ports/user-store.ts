// Users: sign-up, license redemption, lookups and the changes an owner makes to them.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { DeviceToAdmit } from '../../domain/devices.js';
import type { BulkChange } from '../../domain/membership.js';
import type { UserPlans } from '../../domain/membership-state.js';
import type { Instant } from '../../domain/time.js';
import type { UserTimeout } from '../../domain/timeout.js';
import type { AdjustmentRecord, DeviceRecord, UserDetails, UserRecord } from '../records.js';
import type { AuthAttempt, SucceededTurn } from './throttle-store.js';

export interface SignUpInput {
  user: UserRecord;
  /** The device registered at sign-up (device auth on). */
  device: DeviceRecord | null;
  now: Instant;
}

export interface SignUpWithLicenseInput {
  applicationId: string;
  licenseDigest: string;
  /** The user to create; its membership and licenseId are set from the license. */
  user: UserRecord;
  device: DeviceRecord | null;
  /** The machine the sign-up came from, whatever device auth says: what a code of several seats
   * registers to tell its holder apart (docs/plans.md, "Logins by a code of several seats"). */
  holderDevice: DeviceRecord | null;
  adjustmentId: string;
  now: Instant;
}

export interface ActivateLicenseInput {
  applicationId: string;
  userId: string;
  licenseDigest: string;
  adjustmentId: string;
  /** With device auth: admitted (DEVICE_LIMIT_REACHED) in the same transaction as the redemption. */
  device: DeviceToAdmit | null;
  now: Instant;
}

/** A redemption's work after the password work, in one transaction (UserStore.redeemWithTurns). */
export interface RedemptionWithTurns {
  /** The password's turn, settled as a success. */
  password: SucceededTurn;
  /** The code's turn (its account key, the address as counted) and whether the code names a license of the application. */
  code: { attempt: AuthAttempt; found: boolean };
  /** What to redeem once the code's turn is taken; null where nothing is to be redeemed (an unknown code, a banned request). */
  redemption: ActivateLicenseInput | null;
}

/** What redeemWithTurns did: the domain's passwordThenCode, and the redemption where one was made. */
export type RedemptionOutcome = { kind: 'refused'; error: unknown } | { kind: 'busy' } | { kind: 'settled'; lockedUntil: Instant | null } | { kind: 'redeemed'; adjustment: AdjustmentRecord };

export interface UserStore {
  /** ATOMIC: creates the user (and device). Throws USERNAME_TAKEN on a clash of usernameKey. */
  signUp(input: SignUpInput, actor: Actor): Promise<UserRecord>;
  /** ATOMIC: redeems an unused, unbanned license and creates its user with it applied. Throws
   * LICENSE_INVALID, LICENSE_USED or BANNED; for a code of several seats VALIDATION_FAILED (no
   * holderDevice) or LICENSE_ALREADY_REDEEMED (the machine is a holder's already). */
  signUpWithLicense(input: SignUpWithLicenseInput, actor: Actor): Promise<{ user: UserRecord; adjustment: AdjustmentRecord }>;
  /** ATOMIC: redeems a license for an existing user, adding it to the membership. Throws
   * LICENSE_INVALID (missing) or LICENSE_USED, as refused credentials, BANNED (license banned) or
   * DEVICE_LIMIT_REACHED; a refusal writes nothing (no device either). */
  activateLicense(input: ActivateLicenseInput, actor: Actor): Promise<AdjustmentRecord>;
  /** ATOMIC: settles the password's turn, then takes and settles the code's (passwordThenCode of the
   * domain; only the password's when the code's is refused or busy), and redeems as activateLicense
   * does, its refusal thrown after the turns are settled (docs/choices.md, "Throttling"). */
  redeemWithTurns(input: RedemptionWithTurns, actor: Actor): Promise<RedemptionOutcome>;
  /** The ids of every license the user redeemed (sign-up and activations): what a ban propagates to. */
  redeemedLicenseIds(applicationId: string, userId: string): Promise<string[]>;
  findUserByUsernameKey(applicationId: string, usernameKey: string): Promise<UserRecord | null>;
  findUserById(applicationId: string, id: string): Promise<UserRecord | null>;
  /** The usernames of those of `ids` that are users of the application (the audit log's names). */
  usernamesOf(applicationId: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** License-code users who signed up with this license, at most 2: the one holder, or a sign that
   * there are several (docs/plans.md, "Logins by a code of several seats"). */
  findLicenseHolders(applicationId: string, licenseId: string): Promise<UserRecord[]>;
  /** Those license-code users of this license who have `hardwareId` registered, at most 2. */
  findLicenseHoldersByDevice(applicationId: string, licenseId: string, hardwareId: string): Promise<UserRecord[]>;
  getUserDetails(applicationId: string, userId: string): Promise<UserDetails | null>;
  /** The plans behind the user's access as they are now: the base plan `planId` (the user's) and
   * the user's add-on grants with their add-ons' entitlements (docs/plans.md, "Entitlements"). */
  findUserPlans(applicationId: string, userId: string, planId: string | null): Promise<UserPlans>;
  /** Sets the entitlements the owner grants the user directly (sorted, without repeats); null when no such user. */
  setUserEntitlements(applicationId: string, userId: string, entitlements: readonly string[]): Promise<UserRecord | null>;
  /** Users whose username contains `query` (case-insensitive), oldest first. */
  searchUsers(applicationId: string, query: string, page: { limit: number; offset: number }): Promise<UserRecord[]>;
  /** Sets the user's caps; null clears an override, undefined keeps it. */
  updateUserLimits(applicationId: string, userId: string, limits: { allowedDevices?: number | null; allowedSessions?: number | null }): Promise<UserRecord | null>;
  /** ATOMIC: sets (and revokes the user's sessions) or lifts a timeout. False when no such user. */
  setUserTimeout(applicationId: string, userId: string, timeout: UserTimeout | null, now: Instant, actor: Actor): Promise<boolean>;
  /** ATOMIC: unregisters a device and revokes the sessions bound to it. False when not found. */
  deleteDevice(applicationId: string, userId: string, deviceId: string, now: Instant, actor: Actor): Promise<boolean>;
  /** Revokes every live session of the user; returns how many. */
  revokeUserSessions(applicationId: string, userId: string, now: Instant, actor: Actor): Promise<number>;
  /** ATOMIC: applies one bulk change to each listed user of the application (others are ignored),
   * writing an adjustment each. Returns how many users were adjusted. */
  bulkAdjust(applicationId: string, userIds: string[], change: BulkChange, now: Instant, newId: () => string, actor: Actor): Promise<number>;
  recordIp(userId: string, ip: string, now: Instant): Promise<void>;
  /** Whether recordIp ever recorded this address for the user. */
  hasSignedInFrom(userId: string, ip: string): Promise<boolean>;
  /** Whether a device with this hardware id is registered to the user. */
  hasDevice(userId: string, hardwareId: string): Promise<boolean>;
  updatePasswordHash(userId: string, passwordHash: string): Promise<void>;
  /** ATOMIC: sets a new password (a change by the user or the owner) and revokes every live
   * session of the user. False when the user is not the application's. */
  replacePassword(applicationId: string, userId: string, passwordHash: string, now: Instant, actor: Actor): Promise<boolean>;
  /** ATOMIC, under the user's row lock: RESET_COOLDOWN inside the cooldown (planDeviceReset), else
   * unregisters every device, revokes live sessions and records the reset. Returns when the next is
   * allowed; USER_NOT_FOUND when the user is not the application's. */
  resetDevices(input: { applicationId: string; userId: string; cooldownHours: number; now: Instant }, actor: Actor): Promise<{ nextResetAt: Instant }>;
}
