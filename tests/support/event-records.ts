// Records as the store hands them to the event fact builders, each holding the secrets the facts
// must leave out (a password hash, a license's code digest and sealed code, keys, a webhook secret).
import type { WebhookEndpointRecord } from '../../src/application/ports/webhook-store.js';
import type { AdjustmentRecord, AnnouncementRecord, ApplicationRecord, BanRecord, DeviceRecord, FileRecord, LicenseRecord, UserRecord } from '../../src/application/records.js';
import { defaultSettings } from '../../src/domain/application-settings.js';
import { newDevice } from '../../src/application/new-device.js';

export const AT = Date.parse('2026-06-08T12:00:00.000Z');
const HOUR = 3_600_000;

export const user: UserRecord = {
  id: 'u-1',
  applicationId: 'app-1',
  username: 'alice',
  usernameKey: 'alice',
  credentialType: 'username_password',
  passwordHash: '$argon2id$secret-hash',
  licenseId: null,
  allowedDevices: 1,
  allowedSessions: 1,
  membership: { activeUntil: AT + HOUR, isLifetime: false },
  timeout: { until: AT + HOUR, reason: 'cool off' },
  lastIp: '198.51.100.7',
  createdAt: AT,
  lastDeviceResetAt: null,
  planId: null,
  entitlements: [],
  trialStartedAt: null,
  holdsAddOns: false,
};

export const license: LicenseRecord = {
  id: 'l-1',
  applicationId: 'app-1',
  codeDigest: 'code-digest-secret',
  codeSealed: 'code-sealed-secret',
  minutes: 60,
  note: null,
  createdAt: AT,
  usedAt: null,
  usedByUserId: null,
  banned: false,
  planId: null,
  seats: 1,
  redemptions: 0,
  seatExhaustedAt: null,
};

export const adjustment: AdjustmentRecord = {
  id: 'adj-1',
  applicationId: 'app-1',
  userId: 'u-1',
  type: 'license',
  occurredAt: AT,
  minutes: 60,
  grantsLifetime: false,
  revokesLifetime: false,
  licenseId: 'l-1',
  reason: null,
  planFrom: null,
  planTo: null,
};

export const ban: BanRecord = { id: 'b-1', applicationId: 'app-1', type: 'ip', value: '203.0.113.9', reason: 'abuse', createdAt: AT, propagatedFrom: null, expiresAt: null };

export const device: DeviceRecord = newDevice({ id: 'd-1', userId: 'u-1', hardwareId: 'hw-a', registeredAt: AT });

export const file: FileRecord = {
  id: 'f-1',
  applicationId: 'app-1',
  name: 'build.bin',
  isPublic: false,
  mimeType: 'application/octet-stream',
  originalFilename: 'build.bin',
  storeEncrypted: false,
  source: 'ADMIN_API',
  state: {
    processingStatus: 'COMPLETED',
    stored: { blobKey: 'files/app-1/f-1-1', sizeBytes: 7, sha256: 'ab'.repeat(32), storedSizeBytes: 7, storedSha256: 'ab'.repeat(32), encrypted: false },
    pendingJobId: null,
    processingError: null,
  },
  createdAt: AT,
  updatedAt: AT,
};

export const announcement: AnnouncementRecord = { id: 'an-1', applicationId: 'app-1', title: 'News', contentHtml: '<p>hi</p>', status: 'DRAFT', publishFrom: AT, publishUntil: null, createdAt: AT };

export const application: ApplicationRecord = {
  id: 'app-1',
  ownerId: 'o-1',
  name: 'Test App',
  settings: { ...defaultSettings },
  apiKey: 'gh_pk_public-key',
  apiSecretDigest: 'api-secret-digest',
  adminApiKeyDigest: 'admin-key-digest',
  filesKeySealed: 'files-key-sealed',
  signing: { response: { publicKey: 'cHVibGljLWtleQ==', privateKeySealed: 'private-key-sealed' }, previousResponse: null, requestSealed: 'request-key-sealed', previousRequest: null },
  contentVersion: 0,
  bansVersion: 0,
  createdAt: AT,
};

export const endpoint: WebhookEndpointRecord = {
  id: 'w-1',
  applicationId: 'app-1',
  url: 'https://hooks.example.com/a',
  events: ['user.created'],
  description: null,
  enabled: true,
  secretSealed: 'webhook-secret-sealed',
  previousSecretSealed: 'webhook-previous-secret-sealed',
  previousSecretUntil: AT + HOUR,
  failingSince: null,
  disabledReason: null,
  createdAt: AT,
  updatedAt: AT,
};

/** Every secret these records hold: no event's facts may contain one. */
export const SECRETS = [
  user.passwordHash!,
  license.codeDigest,
  license.codeSealed,
  application.apiKey,
  application.apiSecretDigest,
  application.adminApiKeyDigest,
  application.filesKeySealed,
  'private-key-sealed',
  'request-key-sealed',
  endpoint.secretSealed,
  endpoint.previousSecretSealed!,
];
