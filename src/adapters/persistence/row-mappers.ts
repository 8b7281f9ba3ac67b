// Rows to port records and back, for the shared store on either dialect (tables.ts declares the
// tables once, so both have the same row types). A record whose fields are its row's columns is its
// row and needs no mapper; the ones here narrow enum columns or regroup columns the record nests.
import type { FileMetadataPatch } from '../../application/ports/file-store.js';
import type {
  DeviceRecord,
  AdjustmentRecord,
  AnnouncementRecord,
  ApplicationRecord,
  ApplicationSigningKeys,
  BanRecord,
  ConsoleTokenRecord,
  CredentialType,
  FileRecord,
  JobRecord,
  ResponseSigningKey,
  SessionRecord,
  UserRecord,
} from '../../application/records.js';
import type { ApplicationSettings } from '../../domain/application-settings.js';
import type { AnnouncementStatus } from '../../domain/announcements.js';
import type { BanType } from '../../domain/bans.js';
import type { FileSource, FileState, ProcessingStatus, StoredContents } from '../../domain/files.js';
import type { AdjustmentType, Membership } from '../../domain/membership.js';
import type { Plan, PlanKind } from '../../domain/plan.js';
import type { UserTimeout } from '../../domain/timeout.js';
import type { Tables } from './tables.js';

type Row<K extends keyof Tables> = Tables[K]['$inferSelect'];

// Text columns holding enums are only ever written from typed records, so narrowing on read is safe.
export const toConsoleToken = (r: Row<'consoleTokens'>): ConsoleTokenRecord => ({ ...r, kind: r.kind as ConsoleTokenRecord['kind'] });
export const toAdjustment = (r: Row<'adjustments'>): AdjustmentRecord => ({ ...r, type: r.type as AdjustmentType });
export const toAnnouncement = (r: Row<'announcements'>): AnnouncementRecord => ({ ...r, status: r.status as AnnouncementStatus });
export const toBan = (r: Row<'bans'>): BanRecord => ({ ...r, type: r.type as BanType });
// `legacy` stays in the store: no token names a legacy session, so token checks never meet one.
// The hot mappers (sessions, users) name each field: a rest pattern (`{ a, ...r }`) is dear on
// a hot path (docs/performance-log.md, "figures from comments").
export const toSession = (r: Row<'sessions'>): SessionRecord => ({
  id: r.id,
  applicationId: r.applicationId,
  userId: r.userId,
  hardwareId: r.hardwareId,
  tokenDigest: r.tokenDigest,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  revokedAt: r.revokedAt,
  leaseExpiresAt: r.leaseExpiresAt,
  refreshFamilyId: r.refreshFamilyId,
  floatingLicenseId: r.floatingLicenseId,
});
// A plan's entitlements are one JSON column (docs/plans.md).
export const planRow = (p: Plan): Row<'plans'> => ({ ...p, entitlements: JSON.stringify(p.entitlements) });
export const toPlan = (r: Row<'plans'>): Plan => ({ ...r, kind: r.kind as PlanKind, entitlements: JSON.parse(r.entitlements) as string[] });
// seq only orders claims; it is no part of the record.
export const toJob = ({ seq: _seq, ...r }: Row<'jobs'>): JobRecord => r;

// Named field by field: a settings patch is merged from the request, and only settings may be written from it.
export function settingsColumns(s: ApplicationSettings) {
  return {
    anonymousAccess: s.anonymousAccess,
    deviceAuth: s.deviceAuth,
    legacyAuth: s.legacyAuth,
    tokenAuth: s.tokenAuth,
    sessionTtlSeconds: s.sessionTtlSeconds,
    defaultAllowedDevices: s.defaultAllowedDevices,
    defaultAllowedSessions: s.defaultAllowedSessions,
    banPropagation: s.banPropagation,
    banPropagationToAddresses: s.banPropagationToAddresses,
    propagatedIpBanHours: s.propagatedIpBanHours,
    passwordMinLength: s.passwordMinLength,
    responseSigning: s.responseSigning,
    requestSigning: s.requestSigning,
    signatureWindowSeconds: s.signatureWindowSeconds,
    licenseFileTtlMinutes: s.licenseFileTtlMinutes,
    maxUserVariables: s.maxUserVariables,
    deviceResetCooldownHours: s.deviceResetCooldownHours,
    signUpsPerHour: s.signUpsPerHour,
    expiryNoticeDays: s.expiryNoticeDays,
    trialPlanId: s.trialPlanId,
    heartbeatSeconds: s.heartbeatSeconds,
    refreshTtlDays: s.refreshTtlDays,
  };
}

export function signingColumns(k: ApplicationSigningKeys) {
  return {
    responseSigningPublicKey: k.response?.publicKey ?? null,
    responseSigningPrivateKeySealed: k.response?.privateKeySealed ?? null,
    previousResponseSigningPublicKey: k.previousResponse?.publicKey ?? null,
    previousResponseSigningPrivateKeySealed: k.previousResponse?.privateKeySealed ?? null,
    requestSigningKeySealed: k.requestSealed,
    previousRequestSigningKeySealed: k.previousRequest?.sealed ?? null,
    previousRequestSigningKeyReplacedAt: k.previousRequest?.replacedAt ?? null,
  };
}

const responseKey = (publicKey: string | null, privateKeySealed: string | null): ResponseSigningKey | null =>
  publicKey === null || privateKeySealed === null ? null : { publicKey, privateKeySealed };

function toSigningKeys(r: Row<'applications'>): ApplicationSigningKeys {
  const replacedAt = r.previousRequestSigningKeyReplacedAt;
  return {
    response: responseKey(r.responseSigningPublicKey, r.responseSigningPrivateKeySealed),
    previousResponse: responseKey(r.previousResponseSigningPublicKey, r.previousResponseSigningPrivateKeySealed),
    requestSealed: r.requestSigningKeySealed,
    previousRequest: r.previousRequestSigningKeySealed === null || replacedAt === null ? null : { sealed: r.previousRequestSigningKeySealed, replacedAt },
  };
}

export const applicationRow = ({ settings, signing, ...a }: ApplicationRecord): Row<'applications'> => ({ ...a, ...settingsColumns(settings), ...signingColumns(signing) });

// The settings columns are named as the settings are, so settingsColumns reads them off the row too.
export const toApplication = (r: Row<'applications'>): ApplicationRecord => {
  const { id, ownerId, name, apiKey, apiSecretDigest, adminApiKeyDigest, filesKeySealed, contentVersion, bansVersion, createdAt } = r;
  return { id, ownerId, name, settings: settingsColumns(r), apiKey, apiSecretDigest, adminApiKeyDigest, filesKeySealed, signing: toSigningKeys(r), contentVersion, bansVersion, createdAt };
};

export const membershipColumns = (m: Membership) => ({ activeUntil: m.activeUntil, isLifetime: m.isLifetime });
export const timeoutColumns = (t: UserTimeout | null) => ({ timedOutUntil: t?.until ?? null, timeoutReason: t?.reason ?? null });
// Direct entitlements are one JSON column, as a plan's are (docs/plans.md).
export const userRow = ({ membership, timeout, entitlements, ...u }: UserRecord): Row<'users'> => ({
  ...u,
  entitlements: JSON.stringify(entitlements),
  ...membershipColumns(membership),
  ...timeoutColumns(timeout),
});

export const toUser = (r: Row<'users'>): UserRecord => ({
  id: r.id,
  applicationId: r.applicationId,
  username: r.username,
  usernameKey: r.usernameKey,
  credentialType: r.credentialType as CredentialType,
  passwordHash: r.passwordHash,
  licenseId: r.licenseId,
  allowedDevices: r.allowedDevices,
  allowedSessions: r.allowedSessions,
  membership: { activeUntil: r.activeUntil, isLifetime: r.isLifetime },
  timeout: r.timedOutUntil === null ? null : { until: r.timedOutUntil, reason: r.timeoutReason },
  lastIp: r.lastIp,
  createdAt: r.createdAt,
  lastDeviceResetAt: r.lastDeviceResetAt,
  planId: r.planId,
  entitlements: JSON.parse(r.entitlements) as string[],
  trialStartedAt: r.trialStartedAt,
  holdsAddOns: r.holdsAddOns,
});

// A file's state is spread over columns: the processing columns, and the stored contents as six
// columns that are all set or all null.
function storedColumns(s: StoredContents | null) {
  return {
    storedBlobKey: s?.blobKey ?? null,
    sizeBytes: s?.sizeBytes ?? null,
    sha256: s?.sha256 ?? null,
    storedSizeBytes: s?.storedSizeBytes ?? null,
    storedSha256: s?.storedSha256 ?? null,
    storedEncrypted: s?.encrypted ?? null,
  };
}

export const stateColumns = ({ stored, ...processing }: FileState) => ({ ...processing, ...storedColumns(stored) });
export const fileRow = ({ state, ...f }: FileRecord): Row<'files'> => ({ ...f, ...stateColumns(state) });

function toStored(r: Row<'files'>): StoredContents | null {
  if (r.storedBlobKey === null) return null;
  // The files_stored_together check keeps the six columns set together.
  if (r.sizeBytes === null || r.sha256 === null || r.storedSizeBytes === null || r.storedSha256 === null || r.storedEncrypted === null) {
    throw new Error(`files row ${r.id} holds partial stored contents`);
  }
  const { storedBlobKey: blobKey, sizeBytes, sha256, storedSizeBytes, storedSha256, storedEncrypted: encrypted } = r;
  return { blobKey, sizeBytes, sha256, storedSizeBytes, storedSha256, encrypted };
}

export const toFile = (r: Row<'files'>): FileRecord => {
  const { processingStatus, processingError, pendingJobId, storedBlobKey, sizeBytes, sha256, storedSizeBytes, storedSha256, storedEncrypted, ...file } = r;
  const state = { processingStatus: processingStatus as ProcessingStatus, stored: toStored(r), pendingJobId, processingError };
  return { ...file, source: file.source as FileSource, state };
};

/** The columns a metadata patch writes (drizzle leaves a field that is undefined out of the SET). */
export function metadataColumns(p: FileMetadataPatch) {
  const { name, mimeType, originalFilename, isPublic, storeEncrypted, source, updatedAt } = p;
  return { name, mimeType, originalFilename, isPublic, storeEncrypted, source, updatedAt };
}

// Devices registered before last_seen_at existed took registered_at in the migration; the column
// stays nullable so that adding it rewrote no table.
export const toDevice = (r: Row<'devices'>): DeviceRecord => ({ ...r, lastSeenAt: r.lastSeenAt ?? r.registeredAt });
