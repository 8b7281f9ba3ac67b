// Record builders for the Store contract suite. Every id is a fresh UUID and every digest a fresh
// unique string, so tests never collide with each other's rows.
import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/application/ports/store.js';
import type { ApplicationRecord, FileRecord, JobRecord, LicenseRecord, OwnerRecord, SessionRecord, UserRecord } from '../../src/application/records.js';
import { defaultSettings } from '../../src/domain/application-settings.js';
import { DomainError, type ErrorCode } from '../../src/domain/errors.js';
import { acceptUpload, type StoredContents } from '../../src/domain/files.js';
import { MINUTE_MS } from '../../src/domain/time.js';
import { SYSTEM } from '../../src/application/events/actor.js';

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
/** The application's default caps, for admissions of users with no override (docs/plans.md, "Caps"). */
export const CAP_DEFAULTS = { defaultAllowedDevices: 1, defaultAllowedSessions: 1 };
export const HOUR_MS = 60 * MINUTE_MS;

const digest = (kind: string) => `${kind}:${randomUUID().replaceAll('-', '')}`;

export const makeOwner = (over: Partial<OwnerRecord> = {}): OwnerRecord => ({
  id: randomUUID(),
  email: `owner-${randomUUID()}@example.test`,
  passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$fake',
  createdAt: T0,
  ...over,
});

export const makeApp = (ownerId: string, over: Partial<ApplicationRecord> = {}): ApplicationRecord => ({
  id: randomUUID(),
  ownerId,
  name: 'Example app',
  settings: { ...defaultSettings },
  apiKey: `gh_app_${randomUUID()}`,
  apiSecretDigest: digest('secret'),
  adminApiKeyDigest: digest('admin'),
  filesKeySealed: `sealed:${randomUUID()}`,
  signing: { response: makeResponseKey(), previousResponse: null, requestSealed: `sealed:${randomUUID()}`, previousRequest: null },
  contentVersion: 0,
  bansVersion: 0,
  createdAt: T0,
  ...over,
});

/** Stand-ins for a key pair: the store keeps them as given. */
export const makeResponseKey = () => ({ publicKey: `pub:${randomUUID()}`, privateKeySealed: `sealed:${randomUUID()}` });

export function makeUser(applicationId: string, over: Partial<UserRecord> = {}): UserRecord {
  const username = over.username ?? `user_${randomUUID().slice(0, 8)}`;
  return {
    id: randomUUID(),
    applicationId,
    username,
    usernameKey: username.toLowerCase(),
    credentialType: 'username_password',
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$fakeuser',
    licenseId: null,
    allowedDevices: 1,
    allowedSessions: 1,
    // Signed-in users are members: openSession refuses anyone else.
    membership: { activeUntil: T0 + 30 * 24 * HOUR_MS, isLifetime: false },
    timeout: null,
    lastIp: null,
    createdAt: T0,
    lastDeviceResetAt: null,
    planId: null,
    entitlements: [],
    trialStartedAt: null,
    holdsAddOns: false,
    ...over,
  };
}

export const makeLicense = (applicationId: string, over: Partial<LicenseRecord> = {}): LicenseRecord => ({
  id: randomUUID(),
  applicationId,
  codeDigest: digest('lic'),
  codeSealed: `sealed:${randomUUID()}`,
  minutes: 60,
  note: null,
  createdAt: T0,
  usedAt: null,
  usedByUserId: null,
  banned: false,
  planId: null,
  seats: 1,
  redemptions: 0,
  seatExhaustedAt: null,
  ...over,
});

export const makeSession = (applicationId: string, userId: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
  id: randomUUID(),
  applicationId,
  userId,
  hardwareId: null,
  tokenDigest: digest('tok'),
  createdAt: T0,
  expiresAt: T0 + HOUR_MS,
  revokedAt: null,
  leaseExpiresAt: null,
  refreshFamilyId: null,
  floatingLicenseId: null,
  ...over,
});

/**
 * The blob keys the jobs need (their staged uploads): what referencedBlobKeys lists for them while
 * they are stored, so a test sees through it which jobs are in the queue.
 */
export const jobKeys = (...jobs: JobRecord[]): Set<string> => new Set(jobs.map((j) => j.stagingKey));

/** An upload's job for `file`, due at T0, with blob keys of its own. */
export function makeJob(file: Pick<FileRecord, 'id' | 'applicationId'>, over: Partial<JobRecord> = {}): JobRecord {
  const id = over.id ?? randomUUID();
  return {
    id,
    applicationId: file.applicationId,
    fileId: file.id,
    stagingKey: `staging/${id}`,
    outputKey: `files/${file.applicationId}/${id}`,
    encrypt: false,
    attempts: 0,
    runAfter: T0,
    leaseUntil: null,
    leaseOwner: null,
    createdAt: T0,
    ...over,
  };
}

/** A new file (PENDING on its job) and that job. */
export function makeUpload(applicationId: string, over: Partial<FileRecord> = {}, jobOver: Partial<JobRecord> = {}) {
  const id = over.id ?? randomUUID();
  const job = makeJob({ id, applicationId }, jobOver);
  const file: FileRecord = {
    id,
    applicationId,
    name: `file-${randomUUID().slice(0, 8)}.bin`,
    isPublic: false,
    mimeType: 'application/octet-stream',
    originalFilename: 'upload.bin',
    storeEncrypted: false,
    source: 'ADMIN_API',
    state: acceptUpload(null, job.id),
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
  return { file, job };
}

/** What a worker stores for `job`: published under its output key. */
export const makeContents = (job: JobRecord, over: Partial<StoredContents> = {}): StoredContents => ({
  blobKey: job.outputKey,
  sizeBytes: 1234,
  sha256: randomUUID().replaceAll('-', '').repeat(2),
  storedSizeBytes: job.encrypt ? 1300 : 1234,
  storedSha256: randomUUID().replaceAll('-', '').repeat(2),
  encrypted: job.encrypt,
  ...over,
});

/** An owner with one application, stored. */
export async function seedApp(store: Store, over: Partial<ApplicationRecord> = {}) {
  const owner = makeOwner();
  await store.createOwner(owner);
  const app = makeApp(owner.id, over);
  await store.createApplication(app);
  return { owner, app };
}

export async function seedUser(store: Store, applicationId: string, over: Partial<UserRecord> = {}) {
  return store.signUp({ user: makeUser(applicationId, over), device: null, now: T0 }, SYSTEM);
}

/** Awaits `p` and returns the DomainError it rejected with; fails when it resolves or fails otherwise. */
export async function domainError(p: Promise<unknown>, code?: ErrorCode): Promise<DomainError> {
  let outcome: unknown;
  try {
    await p;
  } catch (e) {
    outcome = e;
  }
  if (!(outcome instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(outcome)}`);
  if (code !== undefined && outcome.code !== code) throw new Error(`expected ${code}, got ${outcome.code}: ${outcome.message}`);
  return outcome;
}

/** Settles every promise and counts fulfilments and DomainError codes. */
export async function tally(promises: Promise<unknown>[]) {
  const results = await Promise.allSettled(promises);
  const codes: Record<string, number> = {};
  let fulfilled = 0;
  for (const r of results) {
    if (r.status === 'fulfilled') fulfilled++;
    else {
      const key = r.reason instanceof DomainError ? r.reason.code : `other:${String(r.reason)}`;
      codes[key] = (codes[key] ?? 0) + 1;
    }
  }
  return { fulfilled, codes };
}

/** Like tally, but counts the values the fulfilled promises resolved to (as strings). */
export async function tallyValues(promises: Promise<unknown>[]) {
  const values: Record<string, number> = {};
  const settled = await tally(
    promises.map(async (p) => {
      const value = String(await p);
      values[value] = (values[value] ?? 0) + 1;
    }),
  );
  return { values, codes: settled.codes };
}

/** What getUserDetails adds for a user holding no plan of `app` (docs/plans.md). */
export const noPlansOf = (app: { settings: { defaultAllowedDevices: number; defaultAllowedSessions: number } }) => ({
  plans: { base: null, addOns: [] },
  capDefaults: { defaultAllowedDevices: app.settings.defaultAllowedDevices, defaultAllowedSessions: app.settings.defaultAllowedSessions },
});
