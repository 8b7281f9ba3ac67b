// The records the ports read and write: plain data, as every adapter stores and returns it.
// Instants are epoch milliseconds.
import type { UserPlans } from '../domain/membership-state.js';
import type { ApplicationSettings } from '../domain/application-settings.js';
import type { AnnouncementStatus } from '../domain/announcements.js';
import type { BanKey } from '../domain/bans.js';
import type { FileSource, FileState } from '../domain/files.js';
import type { Adjustment, Membership } from '../domain/membership.js';
import type { DayCount } from '../domain/overview.js';
import type { Instant } from '../domain/time.js';
import type { UserTimeout } from '../domain/timeout.js';

export interface OwnerRecord {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: Instant;
}

export interface ConsoleTokenRecord {
  id: string;
  ownerId: string;
  digest: string;
  createdAt: Instant;
  revokedAt: Instant | null;
  /** Browser sessions only: the token stops working at this instant. Null: no fixed expiry. */
  expiresAt: Instant | null;
  kind: ConsoleTokenKind;
  /** The last request it authenticated (written at most once a minute); null: never used. */
  lastUsedAt: Instant | null;
}

/** How a console token is carried: a Bearer header (login, CLI) or the browser session cookie. */
export type ConsoleTokenKind = 'bearer' | 'cookie';

export interface ApplicationRecord {
  id: string;
  ownerId: string;
  name: string;
  settings: ApplicationSettings;
  /** Public identifier, stored as issued. */
  apiKey: string;
  apiSecretDigest: string;
  adminApiKeyDigest: string;
  /** The files encryption key, sealed under the master key. */
  filesKeySealed: string;
  signing: ApplicationSigningKeys;
  /** Changes whenever the application's variables, announcements or files change, whoever wrote
   * them (the database bumps it): what the content cache compares. New applications start at 0. */
  contentVersion: number;
  /** The same for the application's bans: what the ban memory compares (ban-memory.ts). */
  bansVersion: number;
  createdAt: Instant;
}

/** What an offline license file grants (docs/signing.md, Offline license files), before the
 * signing module turns it into claims: the hardware id is kept here and only its digest is signed. */
export interface LicenseFileGrant {
  id: string;
  applicationId: string;
  userId: string;
  username: string;
  /** null without device auth: the file is then good on any machine. */
  hardwareId: string | null;
  membership: Membership;
  /** The user's entitlements and base plan as the issuing transaction read them (docs/plans.md). */
  entitlements: string[];
  plan: { id: string; name: string } | null;
  issuedAt: Instant;
  expiresAt: Instant;
}

/** An Ed25519 key pair that signs integration responses. */
export interface ResponseSigningKey {
  /** The raw 32-byte public key, base64. */
  publicKey: string;
  /** The private half, sealed under the master key. */
  privateKeySealed: string;
}

/** The keys of response and request signing (docs/api.md, Response signing). The current ones are null
 * only for an application made before response signing existed (or by an older instance during
 * an upgrade), until application/signing-keys.ts issues them. */
export interface ApplicationSigningKeys {
  /** Signs every integration response of the application. */
  response: ResponseSigningKey | null;
  /** The key rotated out: it signs beside the current one until the owner removes it. */
  previousResponse: ResponseSigningKey | null;
  /** The request signing (HMAC) key, 32 bytes in base64, sealed. */
  requestSealed: string | null;
  /** The request signing key rotated out and when: still accepted for the signature window. */
  previousRequest: { sealed: string; replacedAt: Instant } | null;
}

export type CredentialType = 'username_password' | 'license_code';

export interface UserRecord {
  id: string;
  applicationId: string;
  username: string;
  /** Case-folded username: unique per application. */
  usernameKey: string;
  credentialType: CredentialType;
  /** null for license-code users. */
  passwordHash: string | null;
  /** License-code users: the license they signed up (and log in) with. */
  licenseId: string | null;
  /** The owner's caps for this user; null: none set (docs/plans.md, "Caps"). */
  allowedDevices: number | null;
  allowedSessions: number | null;
  membership: Membership;
  timeout: UserTimeout | null;
  lastIp: string | null;
  createdAt: Instant;
  /** The user's last reset of their own devices; null: never. */
  lastDeviceResetAt: Instant | null;
  /** The membership's base plan; null without one (docs/plans.md). */
  planId: string | null;
  /** The entitlement codes the owner granted directly, sorted and without repeats. */
  entitlements: string[];
  /** When the user started the application's trial; null: never. */
  trialStartedAt: Instant | null;
  /** Set with the user's first add-on grant: only then are the grants read (docs/plans.md). */
  holdsAddOns: boolean;
}

export interface DeviceRecord {
  id: string;
  userId: string;
  hardwareId: string;
  /** Also its first_seen_at (docs/machines.md). */
  registeredAt: Instant;
  /** What the client says the machine is: plain text, or null when never said. */
  name: string | null;
  platform: string | null;
  appVersion: string | null;
  /** Moved at most once a minute by login, heartbeat and refresh. */
  lastSeenAt: Instant;
  /** The address it was last seen from; shown to the owner only. */
  lastIp: string | null;
}

export interface SessionRecord {
  id: string;
  applicationId: string;
  userId: string;
  hardwareId: string | null;
  tokenDigest: string;
  createdAt: Instant;
  expiresAt: Instant;
  revokedAt: Instant | null;
  /** Null without heartbeats; else the session is dead from then (docs/machines.md). */
  leaseExpiresAt: Instant | null;
  /** The login whose refresh tokens the session descends from; null without one. */
  refreshFamilyId: string | null;
  /** The floating license whose seat the session holds; null otherwise. */
  floatingLicenseId: string | null;
}

/** A refresh token as stored: only its keyed digest (docs/machines.md, "Refresh tokens"). */
export interface RefreshTokenRecord {
  id: string;
  applicationId: string;
  userId: string;
  /** The login it descends from: every rotation keeps it. */
  familyId: string;
  hardwareId: string;
  tokenDigest: string;
  /** The session issued with it. */
  sessionId: string | null;
  issuedAt: Instant;
  expiresAt: Instant;
  spentAt: Instant | null;
  revokedAt: Instant | null;
}

export interface LicenseRecord {
  id: string;
  applicationId: string;
  /** Keyed digest of the canonical code: unique across the service. */
  codeDigest: string;
  /** The code sealed under the master key, so owners can list it. */
  codeSealed: string;
  /** null: lifetime. */
  minutes: number | null;
  note: string | null;
  createdAt: Instant;
  usedAt: Instant | null;
  usedByUserId: string | null;
  banned: boolean;
  /** The plan it grants; null: a minutes license. */
  planId: string | null;
  /** How many users may redeem it (docs/plans.md, "Seats"); 1 for a minutes license. */
  seats: number;
  /** How many users redeemed it. */
  redemptions: number;
  /** When seat.exhausted was last sent for it (a floating plan's; docs/machines.md). */
  seatExhaustedAt: Instant | null;
}

/** One user's redemption of a plan's code (docs/plans.md, "Seats"). */
export interface LicenseRedemption {
  userId: string;
  /** null once the user is deleted: the seat stays taken until the owner releases it. */
  username: string | null;
  redeemedAt: Instant;
}

export interface AdjustmentRecord extends Adjustment {
  applicationId: string;
  userId: string;
  /** The base plans a redemption moved the membership from and to; null when it kept its plan. */
  planFrom: string | null;
  planTo: string | null;
}

export interface VariableRecord {
  applicationId: string;
  name: string;
  value: string;
  isPublic: boolean;
}

/** A variable of one end user (docs/api.md, User variables). */
export interface UserVariableRecord {
  applicationId: string;
  userId: string;
  name: string;
  value: string;
  updatedAt: Instant;
}

export interface AnnouncementRecord {
  id: string;
  applicationId: string;
  title: string;
  contentHtml: string;
  status: AnnouncementStatus;
  publishFrom: Instant;
  publishUntil: Instant | null;
  createdAt: Instant;
}

export interface BanRecord extends BanKey {
  id: string;
  applicationId: string;
  reason: string | null;
  createdAt: Instant;
  /** The ban whose refusal made this one by propagation; null for an owner's ban. */
  propagatedFrom: string | null;
  /** When the ban stops holding (propagated IP bans); null: until deleted. */
  expiresAt: Instant | null;
}

export interface UserDetails {
  user: UserRecord;
  devices: DeviceRecord[];
  /** Oldest first. */
  adjustments: AdjustmentRecord[];
  /** The plans behind the user's access, as read with the rest. */
  plans: UserPlans;
  /** The application's default caps, for a cap the user and the plan leave open. */
  capDefaults: Pick<ApplicationSettings, 'defaultAllowedDevices' | 'defaultAllowedSessions'>;
}

export interface FileRecord {
  id: string;
  applicationId: string;
  /** Logical name, unique within the application. Metadata only: never a path. */
  name: string;
  isPublic: boolean;
  mimeType: string;
  originalFilename: string;
  /** Whether new contents are to be stored encrypted (the stored form says how they were). */
  storeEncrypted: boolean;
  /** The origin of the most recent write. */
  source: FileSource;
  state: FileState;
  createdAt: Instant;
  updatedAt: Instant;
}

/** One accepted upload awaiting processing: staging blob in, stored blob out. */
export interface JobRecord {
  id: string;
  applicationId: string;
  fileId: string;
  /** Where the upload was streamed to. */
  stagingKey: string;
  /** Base of where the processed contents are published: each claim writes `<outputKey>-<attempts>`. */
  outputKey: string;
  encrypt: boolean;
  attempts: number;
  runAfter: Instant;
  leaseUntil: Instant | null;
  leaseOwner: string | null;
  createdAt: Instant;
}

/** An application's figures for the console overview, counted by the database. */
export interface ApplicationOverviewCounts {
  users: number;
  /** Users whose membership is lifetime or runs past `now`. */
  activeMemberships: number;
  licensesUsed: number;
  licensesUnused: number;
  /** The sum of the size (as uploaded) of the contents being served. */
  storageBytes: number;
  /** Users created, by day of the window (days with none are absent). */
  signUpsByDay: DayCount[];
  /** Sessions opened (revoked or expired since, too), by day of the window. */
  loginsByDay: DayCount[];
}
