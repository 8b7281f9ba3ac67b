// Offline license files (docs/signing.md, Offline license files; docs/api.md): the one issuance every
// way of asking goes through, after its own checks of who asks.
import type { EventStore } from '../ports/event-store.js';
import { deviceLimitReached } from '../events/refusals.js';
import { recordingRefusal } from '../events/record-refusal.js';
import { validateLicenseFileTtl } from '../../domain/application-settings.js';
import { loginRequired } from '../../domain/errors.js';
import { requireHardwareId } from '../../domain/devices.js';
import { membershipState } from '../../domain/membership-state.js';
import type { Instant } from '../../domain/time.js';
import { type BanGuardDeps, guardBans } from '../ban-guard.js';
import type { Caller, Deps } from '../deps.js';
import { authenticateUser, type AuthenticateUserDeps, type PresentedUser } from '../integration/authenticate-user.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { IssuedFileInput, SessionStore } from '../ports/session-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { ApplicationRecord, OwnerRecord, ResponseSigningKey, UserRecord } from '../records.js';
import type { UserPlans } from '../../domain/membership-state.js';
import { lookupUser } from '../admin/lookup-user.js';
import { ownedUser } from '../console/applications.js';
import { withSigningKeys } from '../signing-keys.js';
import { assertUserAccess } from '../user-access.js';
import { type Actor, identified } from '../events/actor.js';

export interface IssuedLicenseFile {
  text: string;
  expiresAt: Instant;
}

/** What issuing a file uses: the signing key, and the atomic admission of its machine. */
export type IssueDeps = Pick<Deps, 'clock' | 'ids' | 'secrets' | 'responseKeys'> & { store: SessionStore & ApplicationStore & EventStore };

/** Admits the machine against the user's device cap in the transaction that re-checks the user's
 * ban, timeout and membership (as a login's does), then signs a file granting the membership as
 * that transaction read it. Without device auth the file is bound to no machine. */
async function issue(
  deps: IssueDeps,
  app: ApplicationRecord,
  userId: string,
  hardwareId: string | null,
  ttlMinutes: number,
  issuedBy: IssuedFileInput['issuedBy'],
  actor: Actor,
): Promise<IssuedLicenseFile> {
  const keyed = await withSigningKeys(deps, app);
  const key = keyed.signing.response;
  if (key === null) throw new Error(`application ${app.id} has no response signing key`);
  const bound = app.settings.deviceAuth ? hardwareId : null;
  const now = deps.clock.now();
  const id = deps.ids.uuid();
  // The file is recorded with its admission: its machine holds a device slot until it expires.
  const admission = () =>
    deps.store.admitLicenseFileDevice(
      {
        applicationId: app.id,
        userId,
        device: bound === null ? null : { hardwareId: bound, newDeviceId: deps.ids.uuid() },
        capDefaults: app.settings,
        file: { id, ttlMinutes, issuedBy },
        now,
      },
      actor,
    );
  const admitted = await recordingRefusal(deps, 'DEVICE_LIMIT_REACHED', () => deviceLimitReached(app.id, { id: userId, username: null }, bound), admission, actor);
  return signAdmitted(deps, key, app, { id, hardwareId: bound, issuedAt: now }, admitted);
}

/** What an admission that recorded a file read: the file grants the membership as it was then. */
export interface AdmittedFile {
  user: UserRecord;
  plans: UserPlans;
  expiresAt: Instant;
}

/** Signs the file an admission recorded (a borrow's too, docs/machines.md, "Floating seats"). */
export async function signAdmitted(
  deps: Pick<Deps, 'responseKeys'>,
  key: ResponseSigningKey,
  app: ApplicationRecord,
  file: { id: string; hardwareId: string | null; issuedAt: Instant },
  { user, plans, expiresAt }: AdmittedFile,
): Promise<IssuedLicenseFile> {
  const state = membershipState(user.membership, user.entitlements, plans, file.issuedAt);
  const text = await deps.responseKeys.signLicenseFile(key, {
    id: file.id,
    applicationId: app.id,
    userId: user.id,
    username: user.username,
    hardwareId: file.hardwareId,
    membership: user.membership,
    entitlements: [...state.entitlements],
    plan: state.plan,
    issuedAt: file.issuedAt,
    expiresAt,
  });
  return { text, expiresAt };
}

/** POST /api/integration/license_file: the authenticated user (a session token, or legacy headers,
 * throttled as at login) for the machine named by `hardware_id`. That machine answers for its
 * bans as a login's would, before the atomic admission. */
export async function requestLicenseFile(
  deps: IssueDeps & AuthenticateUserDeps,
  app: ApplicationRecord,
  presented: PresentedUser,
  body: { hardware_id?: string },
  caller: Caller,
  actor: Actor,
): Promise<IssuedLicenseFile> {
  const hardwareId = requireHardwareId(app.settings.deviceAuth, body.hardware_id);
  const user = await authenticateUser(deps, app, presented, caller, actor);
  if (user === null) throw loginRequired();
  const acting = identified(actor, user.id);
  await assertUserAccess(deps, app, user, caller, acting, hardwareId);
  return issue(deps, app, user.id, hardwareId, app.settings.licenseFileTtlMinutes, { type: 'end_user', id: user.id }, acting);
}

/** What an owner's issuance uses beyond the issuance: the user's licenses and the bans. */
export type OwnerIssueDeps = IssueDeps & BanGuardDeps & { store: UserStore };

export interface OwnerIssueInput {
  hardwareId: string;
  /** Overrides the application's license_file_ttl_minutes, within the same range (the admin API: up to it). */
  ttlMinutes?: number | undefined;
}

/** Who issues a file for a user, and the longest lifetime they may give it. */
interface Issuer {
  issuedBy: IssuedFileInput['issuedBy'];
  maxTtlMinutes?: number;
}

/** An owner's issuance for an air-gapped machine (console and admin API): a client's admission,
 * with the bans of the user, the machine and the user's licenses, not the owner's address (not the
 * machine's); nothing propagates, as the owner proves nothing about the machine. */
async function issueLicenseFileForUser(deps: OwnerIssueDeps, app: ApplicationRecord, user: UserRecord, input: OwnerIssueInput, issuer: Issuer, actor: Actor): Promise<IssuedLicenseFile> {
  const ttl = input.ttlMinutes === undefined ? app.settings.licenseFileTtlMinutes : validateLicenseFileTtl('ttl_minutes', input.ttlMinutes, issuer.maxTtlMinutes);
  const hardwareId = requireHardwareId(app.settings.deviceAuth, input.hardwareId);
  const withoutPropagation = { ...app, settings: { ...app.settings, banPropagation: false } };
  await guardBans(deps, withoutPropagation, { hardwareId, userId: user.id }, actor);
  return issue(deps, app, user.id, hardwareId, ttl, issuer.issuedBy, actor);
}

/** The console's issuance: POST /api/console/applications/{app_id}/users/{user_id}/license_files. */
export async function issueLicenseFileAsOwner(deps: OwnerIssueDeps, owner: OwnerRecord, appId: string, userId: string, input: OwnerIssueInput, actor: Actor): Promise<IssuedLicenseFile> {
  const { app, user } = await ownedUser(deps, owner, appId, userId);
  return issueLicenseFileForUser(deps, app, user, input, { issuedBy: { type: 'owner', id: owner.id } }, actor);
}

/** The admin API's issuance: POST /api/admin/license_files, the user named as GET
 * /user/{username_or_license_code} names one. A key kept on a build server must not mint files
 * that outlive the application's own setting, so ttl_minutes is capped by it. */
export async function issueLicenseFileAsAdmin(
  deps: OwnerIssueDeps & { store: LicenseStore },
  app: ApplicationRecord,
  usernameOrCode: string,
  input: OwnerIssueInput,
  actor: Actor,
): Promise<IssuedLicenseFile> {
  const { user } = await lookupUser(deps, app, usernameOrCode);
  const issuer = { issuedBy: { type: 'admin_key' as const, id: adminKeyFingerprint(app) }, maxTtlMinutes: app.settings.licenseFileTtlMinutes };
  return issueLicenseFileForUser(deps, app, user, input, issuer, actor);
}

/** Which admin key acted: the first 12 hex digits of its keyed digest, which change when the key is
 * rotated and reveal nothing of it. */
export function adminKeyFingerprint(app: ApplicationRecord): string {
  return app.adminApiKeyDigest.slice(0, 12);
}
