// Sessions: opening one (with its device), the legacy seat, revoking and purging them.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { DeviceInfo } from '../../domain/device-info.js';
import type { DeviceToAdmit } from '../../domain/devices.js';
import type { ApplicationSettings } from '../../domain/application-settings.js';
import type { UserPlans } from '../../domain/membership-state.js';
import type { Instant } from '../../domain/time.js';
import type { SucceededTurn } from './throttle-store.js';
import type { RefreshTokenRecord, SessionRecord, UserRecord } from '../records.js';

export interface OpenSessionInput {
  session: SessionRecord;
  /** With device auth: the device to admit (registering it while under the cap). */
  device: DeviceToAdmit | null;
  /** allowed_number_of_simultaneous_sessions. */
  cap: number;
  now: Instant;
  /** The caller's address, recorded for the user as UserStore.recordIp does, in the same transaction. */
  ip?: string;
  /** The credential check's turn, settled as a success with the session (nothing settles it on a refusal). */
  turn?: SucceededTurn;
  /** What the machine said about itself: written to its device with the sighting (DeviceStore.noteDeviceSeen's rule). */
  deviceInfo?: DeviceInfo;
  /** Login's `remember: true`: the family's first token, stored with the session it came with. */
  refreshToken?: RefreshTokenRecord;
  /** The lease the session gets when it takes a floating seat (refused past the seats: SEATS_EXHAUSTED). */
  floatingLease?: Instant;
}

/** An offline license file about to be issued: its id (`jti`), lifetime and issuer. */
export interface IssuedFileInput {
  id: string;
  ttlMinutes: number;
  /** end_user (the user's id), owner (the owner's id) or admin_key (the key's fingerprint). */
  issuedBy: { type: 'end_user' | 'owner' | 'admin_key'; id: string };
}

/** A session as token authentication reads it (SessionStore.findSessionAccess). */
export type SessionAccess = { session: null; user: null } | { session: SessionRecord; user: UserRecord | null };

export interface SessionStore {
  /** ATOMIC: re-reads the user and refuses a login that a timeout (TIMED_OUT), a ban (BANNED) or a membership change
   * (MEMBERSHIP_INACTIVE) overtook while its password was verified; admits the device (DEVICE_LIMIT_REACHED), replaces
   * the same device's live sessions, checks the cap (SESSION_LIMIT_REACHED), inserts the session, records the address. */
  openSession(input: OpenSessionInput, actor: Actor): Promise<{ deviceRegistered: boolean }>;
  /** The legacy path's seat: one statement extends a live seat of the same (user, hardware id, address) to
   * `now + holdMs`; otherwise ATOMIC, admits the device (DEVICE_LIMIT_REACHED) and opens one by planLegacyHold
   * (SESSION_LIMIT_REACHED past the cap; docs/choices.md, "Devices and sessions"). Not counted as a login. */
  holdLegacySession(
    input: {
      applicationId: string;
      userId: string;
      hardwareId: string | null;
      /** The caller's address: the seat is bound to it as well as to the asserted hardware id. */
      address: string;
      device: DeviceToAdmit | null;
      cap: number;
      newSessionId: string;
      holdMs: number;
      now: Instant;
    },
    actor: Actor,
  ): Promise<void>;
  /** ATOMIC, for an offline license file: re-reads and locks the user, refuses and admits the device as openSession does,
   * opens no session, and records the file (its machine holds a device slot until it expires) with its
   * `license_file.issued` event. Returns the user as read, whose membership the file grants, and its expiry. */
  admitLicenseFileDevice(
    input: {
      applicationId: string;
      userId: string;
      /** With device auth: the machine the file is bound to, admitted within the caps of the user as locked. */
      device: { hardwareId: string; newDeviceId: string } | null;
      /** The application's default caps, for a user without an override nor a plan's cap. */
      capDefaults: Pick<ApplicationSettings, 'defaultAllowedDevices' | 'defaultAllowedSessions'>;
      file: IssuedFileInput;
      now: Instant;
    },
    actor: Actor,
  ): Promise<{ user: UserRecord; plans: UserPlans; expiresAt: Instant }>;
  /** One statement: moves the lease of a session that still holds a live one (unrevoked, unexpired,
   * lease not lapsed) to `leaseExpiresAt`; false, writing nothing, for any other session. */
  renewLease(sessionId: string, leaseExpiresAt: Instant, now: Instant): Promise<boolean>;
  findSession(id: string): Promise<SessionRecord | null>;
  /** What token authentication reads, in one go: the session, and with it the application's user
   * the token names. No session: nothing else is read (the token is refused on the session alone). */
  findSessionAccess(applicationId: string, sessionId: string, userId: string): Promise<SessionAccess>;
  /** Ends the session and, when it came of a remembered login, its refresh token family (logout). */
  revokeSession(id: string, now: Instant, actor: Actor): Promise<void>;
  /** Deletes sessions that expired before `endedBefore` (revoked ones by their expiry, a session's
   * latest possible end) and returns how many. The overview's login counts do not depend on them:
   * openSession counts each login per day as it opens it. */
  purgeEndedSessions(endedBefore: Instant, batch?: number): Promise<number>;
}
