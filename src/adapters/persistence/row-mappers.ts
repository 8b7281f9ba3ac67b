// Rows to port records and back, for the shared store (store/*.ts) on either dialect: the tables
// are declared once (tables.ts), so both dialects' tables have the same row types.
import type {
  AdjustmentRecord,
  AnnouncementRecord,
  ApplicationRecord,
  ApplicationSigningKeys,
  BanRecord,
  ConsoleTokenRecord,
  CredentialType,
  DeviceRecord,
  LicenseRecord,
  OwnerRecord,
  ResponseSigningKey,
  SessionRecord,
  UserRecord,
  VariableRecord,
} from '../../application/records.js';
import type { ApplicationSettings } from '../../domain/application-settings.js';
import type { AnnouncementStatus } from '../../domain/announcements.js';
import type { BanType } from '../../domain/bans.js';
import type { AdjustmentType, Membership } from '../../domain/membership.js';
import type { Tables } from './tables.js';

type Row<K extends keyof Tables> = Tables[K]['$inferSelect'];

// Text columns holding enums are only ever written from typed records, so narrowing on read is safe.
export const toOwner = (r: Row<'owners'>): OwnerRecord => ({ ...r });
export const toConsoleToken = (r: Row<'consoleTokens'>): ConsoleTokenRecord => ({ ...r, kind: r.kind as ConsoleTokenRecord['kind'] });

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
    propagatedIpBanHours: s.propagatedIpBanHours,
    passwordMinLength: s.passwordMinLength,
    responseSigning: s.responseSigning,
    requestSigning: s.requestSigning,
    signatureWindowSeconds: s.signatureWindowSeconds,
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

export const applicationRow = (a: ApplicationRecord): Row<'applications'> => ({
  id: a.id,
  ownerId: a.ownerId,
  name: a.name,
  ...settingsColumns(a.settings),
  apiKey: a.apiKey,
  apiSecretDigest: a.apiSecretDigest,
  adminApiKeyDigest: a.adminApiKeyDigest,
  filesKeySealed: a.filesKeySealed,
  ...signingColumns(a.signing),
  createdAt: a.createdAt,
});

export const toApplication = (r: Row<'applications'>): ApplicationRecord => ({
  id: r.id,
  ownerId: r.ownerId,
  name: r.name,
  settings: {
    anonymousAccess: r.anonymousAccess,
    deviceAuth: r.deviceAuth,
    legacyAuth: r.legacyAuth,
    tokenAuth: r.tokenAuth,
    sessionTtlSeconds: r.sessionTtlSeconds,
    defaultAllowedDevices: r.defaultAllowedDevices,
    defaultAllowedSessions: r.defaultAllowedSessions,
    banPropagation: r.banPropagation,
    propagatedIpBanHours: r.propagatedIpBanHours,
    passwordMinLength: r.passwordMinLength,
    responseSigning: r.responseSigning,
    requestSigning: r.requestSigning,
    signatureWindowSeconds: r.signatureWindowSeconds,
  },
  apiKey: r.apiKey,
  apiSecretDigest: r.apiSecretDigest,
  adminApiKeyDigest: r.adminApiKeyDigest,
  filesKeySealed: r.filesKeySealed,
  signing: toSigningKeys(r),
  createdAt: r.createdAt,
});

export const membershipColumns = (m: Membership) => ({ activeUntil: m.activeUntil, isLifetime: m.isLifetime });

export const userRow = (u: UserRecord): Row<'users'> => ({
  id: u.id,
  applicationId: u.applicationId,
  username: u.username,
  usernameKey: u.usernameKey,
  credentialType: u.credentialType,
  passwordHash: u.passwordHash,
  licenseId: u.licenseId,
  allowedDevices: u.allowedDevices,
  allowedSessions: u.allowedSessions,
  ...membershipColumns(u.membership),
  timedOutUntil: u.timeout?.until ?? null,
  timeoutReason: u.timeout?.reason ?? null,
  lastIp: u.lastIp,
  createdAt: u.createdAt,
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
});

export const toDevice = (r: Row<'devices'>): DeviceRecord => ({ ...r });
// `legacy` stays in the store: no token names a legacy session, so token checks never meet one.
export const toSession = ({ legacy: _legacy, ...r }: Row<'sessions'>): SessionRecord => r;
export const toLicense = (r: Row<'licenses'>): LicenseRecord => ({ ...r });

export const adjustmentRow = (a: AdjustmentRecord): Row<'adjustments'> => ({
  id: a.id,
  applicationId: a.applicationId,
  userId: a.userId,
  type: a.type,
  occurredAt: a.occurredAt,
  minutes: a.minutes,
  grantsLifetime: a.grantsLifetime,
  revokesLifetime: a.revokesLifetime,
  licenseId: a.licenseId,
  reason: a.reason,
});

export const toAdjustment = (r: Row<'adjustments'>): AdjustmentRecord => ({
  ...r,
  type: r.type as AdjustmentType,
});

export const toVariable = (r: Row<'variables'>): VariableRecord => ({ ...r });

export const toAnnouncement = (r: Row<'announcements'>): AnnouncementRecord => ({
  ...r,
  status: r.status as AnnouncementStatus,
});

export const toBan = (r: Row<'bans'>): BanRecord => ({ ...r, type: r.type as BanType });
