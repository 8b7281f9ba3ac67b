// Every driven port of Gatehouse, in one place. Adapters implement these; use cases depend on
// nothing else. Instants are epoch milliseconds.
import type { ApplicationSettings } from '../domain/application-settings.js';
import type { AccountCounter, AccountWindow, AttemptOutcome, IpCounter, ThrottleLimits } from '../domain/auth-throttle.js';
import type { SignUpLimits } from '../domain/sign-up-limits.js';
import type { BanKey, MatchedBan } from '../domain/bans.js';
import type { FileSource, StoredContents } from '../domain/files.js';
import type { BulkChange } from '../domain/membership.js';
import type { DayWindow } from '../domain/overview.js';
import type { Instant } from '../domain/time.js';
import type { UserTimeout } from '../domain/timeout.js';
import type {
  AdjustmentRecord,
  AnnouncementRecord,
  ApplicationOverviewCounts,
  ApplicationRecord,
  ApplicationSigningKeys,
  BanRecord,
  ConsoleTokenRecord,
  DeviceRecord,
  FileRecord,
  JobRecord,
  LicenseRecord,
  OwnerRecord,
  ResponseSigningKey,
  SessionRecord,
  UserDetails,
  UserRecord,
  VariableRecord,
} from './records.js';

// The records live beside the ports; re-exported so a use case imports its types from one place.
export type {
  AdjustmentRecord,
  AnnouncementRecord,
  ApplicationOverviewCounts,
  ApplicationRecord,
  ApplicationSigningKeys,
  BanRecord,
  ConsoleTokenRecord,
  CredentialType,
  DeviceRecord,
  FileRecord,
  JobRecord,
  LicenseRecord,
  OwnerRecord,
  ResponseSigningKey,
  SessionRecord,
  UserDetails,
  UserRecord,
  VariableRecord,
} from './records.js';

// ---- Store: persistence --------------------------------------------------------------------
// Methods marked ATOMIC read, decide (with src/domain rules) and write in one transaction that
// holds across processes (SQLite BEGIN IMMEDIATE; PostgreSQL row locks). A DomainError thrown
// inside one rolls back everything it wrote.

export interface OwnerStore {
  /** Throws DomainError EMAIL_TAKEN when the email exists. */
  createOwner(owner: OwnerRecord): Promise<void>;
  findOwnerByEmail(email: string): Promise<OwnerRecord | null>;
  findOwnerById(id: string): Promise<OwnerRecord | null>;
  /** Every owner, oldest first (the CLI's `owner list`). */
  listOwners(): Promise<OwnerRecord[]>;
  updateOwnerPasswordHash(id: string, passwordHash: string): Promise<void>;
  createConsoleToken(token: ConsoleTokenRecord): Promise<void>;
  findConsoleToken(digest: string): Promise<ConsoleTokenRecord | null>;
  revokeConsoleToken(id: string, now: Instant): Promise<void>;
  /** Records a use of the token (last_used_at = now, never moved back); a revoked one is left alone. */
  touchConsoleToken(id: string, now: Instant): Promise<void>;
  /** The owner's console tokens not revoked (expired ones included), oldest first. */
  listConsoleTokens(ownerId: string): Promise<ConsoleTokenRecord[]>;
  /** Revokes every unrevoked console token of the owner but `exceptId`'s; returns how many. */
  revokeConsoleTokensOf(ownerId: string, exceptId: string | null, now: Instant): Promise<number>;
}

export interface ApplicationPatch {
  name?: string;
  settings?: ApplicationSettings;
  apiSecretDigest?: string;
  adminApiKeyDigest?: string;
}

export interface ApplicationStore {
  createApplication(app: ApplicationRecord): Promise<void>;
  /** Oldest first. */
  listApplications(ownerId: string): Promise<ApplicationRecord[]>;
  findApplication(id: string): Promise<ApplicationRecord | null>;
  findApplicationByApiKey(apiKey: string): Promise<ApplicationRecord | null>;
  findApplicationByAdminKeyDigest(digest: string): Promise<ApplicationRecord | null>;
  /** Returns the updated record, or null when there is no such application. */
  updateApplication(id: string, patch: ApplicationPatch): Promise<ApplicationRecord | null>;
  /**
   * ATOMIC: renames the application (when `name` is given) and lays `settings` over its stored
   * settings (mergeSettings of the domain), so concurrent patches of different fields all hold.
   * Null when there is no such application.
   */
  patchApplication(id: string, patch: { name?: string; settings: Partial<ApplicationSettings> }): Promise<ApplicationRecord | null>;
  /** Deletes the application and everything it owns. False when there was none. */
  deleteApplication(id: string): Promise<boolean>;
  /**
   * ATOMIC: `next` becomes the response signing key and the current one the previous key (a
   * previous key already there is dropped). Null when there is no such application.
   */
  rotateResponseSigningKey(id: string, next: ResponseSigningKey): Promise<ApplicationRecord | null>;
  /** Drops the previous response signing key, if any. Null when there is no such application. */
  dropPreviousResponseSigningKey(id: string): Promise<ApplicationRecord | null>;
  /**
   * ATOMIC: `nextSealed` becomes the request signing key and the current one the previous key,
   * replaced at `now`. Null when there is no such application.
   */
  rotateRequestSigningKey(id: string, nextSealed: string, now: Instant): Promise<ApplicationRecord | null>;
  /** The ids of the applications lacking a current response or request signing key. */
  applicationsWithoutSigningKeys(): Promise<string[]>;
  /**
   * ATOMIC: sets whichever current signing key the application lacks from `keys` and keeps any it
   * has, so instances racing to fill one agree on the first one written. Null when there is no
   * such application.
   */
  fillMissingSigningKeys(id: string, keys: { response: ResponseSigningKey; requestSealed: string }): Promise<ApplicationRecord | null>;
  /** Any one sealed files key, to check at start that the master key opens this database's secrets. */
  sampleSealedSecret(): Promise<string | null>;
}

export interface LicenseStore {
  /** ATOMIC: all or none. */
  insertLicenses(licenses: LicenseRecord[]): Promise<void>;
  /** Oldest first. */
  listLicenses(applicationId: string, status?: 'used' | 'unused'): Promise<LicenseRecord[]>;
  findLicenseByDigest(applicationId: string, codeDigest: string): Promise<LicenseRecord | null>;
  findLicenseById(applicationId: string, id: string): Promise<LicenseRecord | null>;
  /** ATOMIC: deletes an unused license; a used one is kept. */
  deleteUnusedLicense(applicationId: string, id: string): Promise<'deleted' | 'used' | 'missing'>;
}

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
  adjustmentId: string;
  now: Instant;
}

export interface ActivateLicenseInput {
  applicationId: string;
  userId: string;
  licenseDigest: string;
  adjustmentId: string;
  /** With device auth: admitted (DEVICE_LIMIT_REACHED) in the same transaction as the redemption. */
  device: { hardwareId: string; allowed: number; newDeviceId: string } | null;
  now: Instant;
}

export interface UserStore {
  /** ATOMIC: creates the user (and device). Throws USERNAME_TAKEN on a clash of usernameKey. */
  signUp(input: SignUpInput): Promise<UserRecord>;
  /**
   * ATOMIC: redeems an unused, unbanned license of the application and creates its user with the
   * license applied. Throws LICENSE_INVALID (no such license), LICENSE_USED or BANNED (license banned).
   */
  signUpWithLicense(input: SignUpWithLicenseInput): Promise<{ user: UserRecord; adjustment: AdjustmentRecord }>;
  /**
   * ATOMIC: redeems a license for an existing user, adding it to the membership. Throws
   * LICENSE_INVALID (missing) or LICENSE_USED, as refused credentials, BANNED (license banned) or
   * DEVICE_LIMIT_REACHED; a refusal writes nothing (no device either).
   */
  activateLicense(input: ActivateLicenseInput): Promise<AdjustmentRecord>;
  /** The ids of every license the user redeemed (sign-up and activations). */
  redeemedLicenseIds(applicationId: string, userId: string): Promise<string[]>;
  findUserByUsernameKey(applicationId: string, usernameKey: string): Promise<UserRecord | null>;
  findUserById(applicationId: string, id: string): Promise<UserRecord | null>;
  /** The license-code user who signed up with this license. */
  findUserByLicenseId(applicationId: string, licenseId: string): Promise<UserRecord | null>;
  getUserDetails(applicationId: string, userId: string): Promise<UserDetails | null>;
  /** Users whose username contains `query` (case-insensitive), oldest first. */
  searchUsers(applicationId: string, query: string, page: { limit: number; offset: number }): Promise<UserRecord[]>;
  updateUserLimits(
    applicationId: string,
    userId: string,
    limits: { allowedDevices?: number; allowedSessions?: number },
  ): Promise<UserRecord | null>;
  /** ATOMIC: sets (and revokes the user's sessions) or lifts a timeout. False when no such user. */
  setUserTimeout(applicationId: string, userId: string, timeout: UserTimeout | null, now: Instant): Promise<boolean>;
  /** ATOMIC: unregisters a device and revokes the sessions bound to it. False when not found. */
  deleteDevice(applicationId: string, userId: string, deviceId: string, now: Instant): Promise<boolean>;
  /** Revokes every live session of the user; returns how many. */
  revokeUserSessions(applicationId: string, userId: string, now: Instant): Promise<number>;
  /**
   * ATOMIC: applies one bulk change to each listed user of the application (others are ignored),
   * writing an adjustment each. Returns how many users were adjusted.
   */
  bulkAdjust(applicationId: string, userIds: string[], change: BulkChange, now: Instant, newId: () => string): Promise<number>;
  recordIp(userId: string, ip: string, now: Instant): Promise<void>;
  /** Whether recordIp ever recorded this address for the user. */
  hasSignedInFrom(userId: string, ip: string): Promise<boolean>;
  updatePasswordHash(userId: string, passwordHash: string): Promise<void>;
}

export interface OpenSessionInput {
  session: SessionRecord;
  /** With device auth: the device to admit (registering it while under the cap). */
  device: { hardwareId: string; allowed: number; newDeviceId: string } | null;
  /** allowed_number_of_simultaneous_sessions. */
  cap: number;
  now: Instant;
}

export interface SessionStore {
  /**
   * ATOMIC: re-reads the user and refuses a login that a timeout (TIMED_OUT), a user ban (BANNED)
   * or a membership change (MEMBERSHIP_INACTIVE) overtook while its password was being verified;
   * admits the device (DEVICE_LIMIT_REACHED), replaces the same device's live sessions, checks
   * the session cap (SESSION_LIMIT_REACHED) and inserts the session.
   */
  openSession(input: OpenSessionInput): Promise<{ deviceRegistered: boolean }>;
  /**
   * The legacy per-request path's seat. One statement when the (user, hardware id) already holds
   * a live legacy session: its hold is extended to `now + holdMs`. Otherwise ATOMIC: admits the
   * device (DEVICE_LIMIT_REACHED) and opens a legacy session with planLegacyHold of the domain
   * (SESSION_LIMIT_REACHED past the cap). Not counted as a login.
   */
  holdLegacySession(input: {
    applicationId: string;
    userId: string;
    hardwareId: string | null;
    device: { hardwareId: string; allowed: number; newDeviceId: string } | null;
    cap: number;
    newSessionId: string;
    holdMs: number;
    now: Instant;
  }): Promise<void>;
  findSession(id: string): Promise<SessionRecord | null>;
  revokeSession(id: string, now: Instant): Promise<void>;
  /**
   * Deletes sessions that expired before `endedBefore` (revoked ones too, by their expiry: a
   * session's expiry is its latest possible end); live ones and recent history stay. Returns how
   * many it deleted. The overview's login counts do not depend on them (openSession counts each
   * login per day as it opens it).
   */
  purgeEndedSessions(endedBefore: Instant, batch?: number): Promise<number>;
}

export interface BanStore {
  /** The live (unexpired) bans of the application matching any of the keys. */
  findMatchingBans(applicationId: string, keys: BanKey[], now: Instant): Promise<MatchedBan[]>;
  /**
   * ATOMIC: adds bans (unique per application, type, value). A ban already stored for a key is
   * kept, unless the new one replaces it (replacesStoredBan of the domain: it expired, or an
   * owner bans what propagation banned). A user ban revokes the user's sessions; a license ban
   * flags the license. Returns the records now stored for those keys, in input order.
   */
  addBans(applicationId: string, bans: BanRecord[], now: Instant): Promise<BanRecord[]>;
  /** The live bans, newest first. */
  listBans(applicationId: string, now: Instant): Promise<BanRecord[]>;
  /**
   * ATOMIC: removes a ban (clearing the license flag of a license ban) and, with `cascade`, the
   * bans it propagated. False when not found.
   */
  deleteBan(applicationId: string, banId: string, options?: { cascade?: boolean }): Promise<boolean>;
  /** Deletes the bans that expired by `now` (propagated IP bans) in every application; returns how many. */
  purgeExpiredBans(now: Instant): Promise<number>;
}

export interface AuthAttempt {
  applicationId: string;
  /**
   * What the caller claimed to be (e.g. `user:<usernameKey>` or `license:<digest>`), existing or
   * not; null where a check has no account (only the address is throttled).
   */
  accountKey: string | null;
  ip: string;
  now: Instant;
  /**
   * The account has signed in from this address before: it is served past the address's limit
   * (reserveIpAttempt). Asked only once the address is over its limit.
   */
  familiar?: boolean;
}

export interface SignUpSlot {
  applicationId: string;
  address: string;
  now: Instant;
}

export interface ThrottleStore {
  /**
   * ATOMIC: reserves one credential check. RATE_LIMITED when the address is over its limit,
   * ACCOUNT_LOCKED while the account is locked everywhere or for this address, 'busy' while the
   * (account, address) failures plus checks in flight reach the threshold (the caller waits and
   * tries again); nothing is written then. Otherwise the address and the account's window count a
   * failure (forgiven on success) and the (account, address) counter a check in flight. Decides
   * with reserveIpAttempt, reserveAccountWindow and reserveAccountAttempt of the domain.
   */
  reserveAuthAttempt(attempt: AuthAttempt, limits: ThrottleLimits): Promise<'reserved' | 'busy'>;
  /**
   * ATOMIC: settles a reserved check with settleAccountAttempt (and, on success, ipAfterSuccess
   * and accountWindowAfterSuccess).
   */
  settleAuthAttempt(attempt: AuthAttempt, outcome: AttemptOutcome, limits: ThrottleLimits): Promise<void>;
  /** For tests and the console: the counters as stored (`account`: the account at this address). */
  readThrottle(
    applicationId: string,
    accountKey: string,
    ip: string,
  ): Promise<{ account: AccountCounter; everywhere: AccountWindow | null; ip: IpCounter | null }>;
  /**
   * ATOMIC: counts one sign-up in the application's and the address's hourly windows (`address`:
   * its addressBucket), or throws RATE_LIMITED (reserveSignUp) and writes nothing.
   */
  reserveSignUp(slot: SignUpSlot, limits: SignUpLimits): Promise<void>;
  /** ATOMIC: gives back a reserved sign-up that failed (signUpGivenBack). */
  releaseSignUp(slot: SignUpSlot): Promise<void>;
  /**
   * Deletes the counters a purge may forget at `now` (throttlePurgeCutoffs): ended windows (sign-up
   * windows included) and idle (account, address) counters. Returns how many rows went and how many remain.
   */
  purgeThrottle(now: Instant): Promise<{ deleted: number; kept: number }>;
  /** Lifts every lock of the accounts (their counters at every address and their window). */
  unlockAccounts(applicationId: string, accountKeys: string[]): Promise<void>;
}

/** The fields of an announcement an owner can change. */
export type AnnouncementPatch = Partial<Pick<AnnouncementRecord, 'title' | 'contentHtml' | 'status' | 'publishFrom' | 'publishUntil'>>;

export interface ContentStore {
  putVariable(variable: VariableRecord): Promise<VariableRecord>;
  /** By name. */
  listVariables(applicationId: string): Promise<VariableRecord[]>;
  deleteVariable(applicationId: string, name: string): Promise<boolean>;
  createAnnouncement(a: AnnouncementRecord): Promise<void>;
  /**
   * ATOMIC: lays the fields given over the stored announcement (mergeAnnouncement of the domain),
   * so concurrent patches of different fields all hold. Null when there is no such announcement.
   */
  patchAnnouncement(applicationId: string, id: string, patch: AnnouncementPatch): Promise<AnnouncementRecord | null>;
  findAnnouncement(applicationId: string, id: string): Promise<AnnouncementRecord | null>;
  /** Newest publish_from first. */
  listAnnouncements(applicationId: string): Promise<AnnouncementRecord[]>;
  deleteAnnouncement(applicationId: string, id: string): Promise<boolean>;
}

/** What a write of contents changes beside them. */
export interface FileMetadataPatch {
  name?: string;
  isPublic: boolean;
  storeEncrypted: boolean;
  source: FileSource;
  updatedAt: Instant;
  /** With new contents only. */
  mimeType?: string;
  originalFilename?: string;
}

export interface FileStore {
  /** ATOMIC: the file row and its job. FILE_NAME_TAKEN when the name is used in the application. */
  createFile(file: FileRecord, job: JobRecord): Promise<void>;
  /**
   * ATOMIC: new contents for an existing file (acceptUpload of the domain) with its job and
   * metadata; FILE_NAME_TAKEN on a clash of a new name. A previous job still awaited is dropped;
   * its staging key is returned for deletion. Null when there is no such file.
   */
  replaceFileContents(applicationId: string, fileId: string, patch: FileMetadataPatch, job: JobRecord): Promise<{ file: FileRecord; discard: string[] } | null>;
  /**
   * ATOMIC: creates the file under `file.name` or, when the name exists, replaces its contents
   * (keeping its id). Returns which it did.
   */
  upsertFileByName(file: FileRecord, job: JobRecord): Promise<{ file: FileRecord; created: boolean; discard: string[] }>;
  /** Metadata only; FILE_NAME_TAKEN on a clash. Null when there is no such file. */
  updateFileMetadata(applicationId: string, fileId: string, patch: FileMetadataPatch): Promise<FileRecord | null>;
  findFile(applicationId: string, fileId: string): Promise<FileRecord | null>;
  /** Oldest first. */
  listFiles(applicationId: string): Promise<FileRecord[]>;
  /** ATOMIC: removes the file and its jobs; returns every blob key they held, or null when none. */
  deleteFile(applicationId: string, fileId: string): Promise<string[] | null>;
  /** Every blob key a file or job refers to: what an orphan sweep must keep. */
  referencedBlobKeys(): Promise<Set<string>>;
}

export interface JobQueue {
  /** ATOMIC: claims the oldest claimable job (isClaimable) under a lease; null when none. */
  claimJob(workerId: string, now: Instant, leaseMs: number): Promise<JobRecord | null>;
  /** Extends the lease; false when the worker no longer holds it. */
  heartbeat(jobId: string, workerId: string, now: Instant, leaseMs: number): Promise<boolean>;
  /**
   * ATOMIC: the job's contents are stored: completeUpload of the domain, and the job is removed.
   * Returns the blob keys no longer needed (staging, replaced or superseded contents), or 'lost'
   * when the worker no longer holds the job (nothing changed).
   */
  completeJob(jobId: string, workerId: string, contents: StoredContents, now: Instant): Promise<string[] | 'lost'>;
  /**
   * ATOMIC: an attempt failed. While attempts remain, the job waits `retryInMs` and is released;
   * on the last, failUpload of the domain and the job is removed. Returns blob keys no longer
   * needed, or 'lost'.
   */
  failJob(jobId: string, workerId: string, message: string, now: Instant, retryInMs: number | null): Promise<string[] | 'lost'>;
  /** Jobs not yet done (for tests and health). */
  countJobs(): Promise<number>;
}

export interface OverviewStore {
  /** Counted with SQL aggregates from one consistent snapshot. */
  applicationOverview(applicationId: string, now: Instant, window: DayWindow): Promise<ApplicationOverviewCounts>;
}

export interface Store
  extends OwnerStore,
    OverviewStore,
    ApplicationStore,
    LicenseStore,
    UserStore,
    SessionStore,
    BanStore,
    ThrottleStore,
    ContentStore,
    FileStore,
    JobQueue {
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---- Blob storage -------------------------------------------------------------------------

export interface BlobInfo {
  size: number;
  modifiedAt: Instant;
}

/**
 * Bytes by key. Keys are made by the server only (lower-case letters, digits, '-', '_' and '/'
 * between segments); no name a client sends ever becomes part of one.
 */
export interface BlobStore {
  /**
   * Streams `body` to a new object. The object appears whole or not at all; past `maxBytes` the
   * write fails with PAYLOAD_TOO_LARGE and nothing is left behind. An existing object is replaced.
   */
  write(key: string, body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>, options?: { maxBytes?: number }): Promise<BlobInfo>;
  /**
   * The object's bytes, or the inclusive range [start, end] of them; null when missing.
   * `chunkBytes` asks for pieces of about that size where the store picks them (a local file):
   * a bulk reader asks for large ones, which take fewer reads and less work per byte, while a
   * served download keeps the store's small default, so each one buffers little.
   */
  read(key: string, range?: { start: number; end: number }, options?: { chunkBytes?: number }): Promise<NodeJS.ReadableStream | null>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every object under a prefix ('' for all). */
  list(prefix: string): AsyncIterable<{ key: string } & BlobInfo>;
  /** Throws when the storage cannot be reached. */
  ping(): Promise<void>;
}

// ---- Crypto and environment ----------------------------------------------------------------

export interface PasswordHasher {
  /**
   * A place in `lane`'s bounded queue of password work (a lane per application, and one for the
   * console), held by one request for all of its hashing; null when that queue is full. Lanes
   * take turns, so one application's flood does not starve another's checks.
   */
  admit(lane: string): PasswordWork | null;
  /** True when the hash was made with weaker parameters than the current ones. */
  needsRehash(hash: string): boolean;
}

/** Makes owner-written HTML safe to show to users: what the allow-list keeps, nothing else. */
export interface HtmlSanitizer {
  sanitize(html: string): string;
}

/** The hashing of one request, each call waiting for its lane's turn. */
export interface PasswordWork {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Spends the same work as a verify, for unknown accounts (no timing oracle). */
  verifyDummy(password: string): Promise<void>;
  /** Gives the place back; a second call does nothing. */
  done(): void;
}

export interface SessionClaims {
  sessionId: string;
  applicationId: string;
  userId: string;
  hardwareId: string | null;
  expiresAt: Instant;
}

export interface TokenService {
  issue(claims: SessionClaims): Promise<string>;
  /** The claims of a well-formed, correctly signed token (expired or not); null otherwise. */
  read(token: string): Promise<SessionClaims | null>;
}

/** Issuing secrets and keeping them out of the database in plain text. */
export interface Secrets {
  /** `prefix` + at least 128 random bits, URL-safe. */
  issue(prefix: string): string;
  randomBytes(n: number): Uint8Array;
  /** Keyed digest (HMAC under a key derived from the master key), hex. */
  digest(secret: string): string;
  /** Constant-time equality of two digests. */
  sameDigest(a: string, b: string): boolean;
  /**
   * The CSRF token of a browser session: a MAC of its console token under a key of its own, so it
   * proves the caller could read the session's answers without being the cookie itself.
   */
  csrfToken(consoleToken: string): string;
  /** Authenticated encryption under the master key; the result is text. */
  seal(plain: string): string;
  open(sealed: string): string;
}

/** The Ed25519 keys that sign integration responses (README, Response signing). */
export interface ResponseSigningKeys {
  /** A new key pair, its private half sealed under the master key. */
  generate(): ResponseSigningKey;
  /** The base64 Ed25519 signature of `message` (UTF-8) under the key's private half. */
  sign(key: ResponseSigningKey, message: string): string;
}

export interface Clock {
  now(): Instant;
}

export interface Ids {
  uuid(): string;
}
