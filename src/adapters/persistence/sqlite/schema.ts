// SQLite tables of the Store. Instants are integer epoch milliseconds and flags are 0/1 integers,
// so the inferred row types stay plain (string, number, boolean) and a PostgreSQL schema can mirror
// them exactly. Everything an application owns cascades from `applications`, so deleting one row
// removes it all.
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, unique } from 'drizzle-orm/sqlite-core';

const instant = (name: string) => integer(name, { mode: 'number' });
const flag = (name: string) => integer(name, { mode: 'boolean' });

export const owners = sqliteTable('owners', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  createdAt: instant('created_at').notNull(),
});

export const consoleTokens = sqliteTable(
  'console_tokens',
  {
    id: text('id').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    digest: text('digest').notNull().unique(),
    createdAt: instant('created_at').notNull(),
    revokedAt: instant('revoked_at'),
    // Browser (cookie) sessions end 12 hours after sign-in; CLI and API tokens never (null).
    expiresAt: instant('expires_at'),
  },
  (t) => [index('console_tokens_owner_idx').on(t.ownerId)],
);

export const applications = sqliteTable(
  'applications',
  {
    id: text('id').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    anonymousAccess: flag('anonymous_access').notNull(),
    deviceAuth: flag('device_auth').notNull(),
    legacyAuth: flag('legacy_auth').notNull(),
    tokenAuth: flag('token_auth').notNull(),
    sessionTtlSeconds: integer('session_ttl_seconds', { mode: 'number' }).notNull(),
    defaultAllowedDevices: integer('default_allowed_devices', { mode: 'number' }).notNull(),
    defaultAllowedSessions: integer('default_allowed_sessions', { mode: 'number' }).notNull(),
    banPropagation: flag('ban_propagation').notNull(),
    passwordMinLength: integer('password_min_length', { mode: 'number' }).notNull(),
    apiKey: text('api_key').notNull().unique(),
    apiSecretDigest: text('api_secret_digest').notNull(),
    adminApiKeyDigest: text('admin_api_key_digest').notNull().unique(),
    filesKeySealed: text('files_key_sealed').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('applications_owner_idx').on(t.ownerId)],
);

const appRef = () =>
  text('application_id')
    .notNull()
    .references(() => applications.id, { onDelete: 'cascade' });

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    username: text('username').notNull(),
    usernameKey: text('username_key').notNull(),
    credentialType: text('credential_type').notNull(),
    passwordHash: text('password_hash'),
    // No foreign key: a used license is never deleted, and licenses point back at users.
    licenseId: text('license_id'),
    allowedDevices: integer('allowed_devices', { mode: 'number' }).notNull(),
    allowedSessions: integer('allowed_sessions', { mode: 'number' }).notNull(),
    activeUntil: instant('active_until'),
    isLifetime: flag('is_lifetime').notNull(),
    timedOutUntil: instant('timed_out_until'),
    timeoutReason: text('timeout_reason'),
    lastIp: text('last_ip'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [
    unique('users_app_username_key_uq').on(t.applicationId, t.usernameKey),
    index('users_app_license_idx').on(t.applicationId, t.licenseId),
    // The console overview counts sign-ups per day of one application.
    index('users_app_created_idx').on(t.applicationId, t.createdAt),
  ],
);

const userRef = () =>
  text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });

export const devices = sqliteTable(
  'devices',
  {
    id: text('id').primaryKey(),
    userId: userRef(),
    hardwareId: text('hardware_id').notNull(),
    registeredAt: instant('registered_at').notNull(),
  },
  (t) => [unique('devices_user_hardware_uq').on(t.userId, t.hardwareId)],
);

export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    userId: userRef(),
    hardwareId: text('hardware_id'),
    tokenDigest: text('token_digest').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    revokedAt: instant('revoked_at'),
  },
  // app_created: the console overview counts logins (sessions opened) per day of one application.
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_app_created_idx').on(t.applicationId, t.createdAt)],
);

export const licenses = sqliteTable(
  'licenses',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    // Unique across the service, not per application: a code identifies one license anywhere.
    codeDigest: text('code_digest').notNull().unique(),
    codeSealed: text('code_sealed').notNull(),
    minutes: integer('minutes', { mode: 'number' }),
    note: text('note'),
    createdAt: instant('created_at').notNull(),
    usedAt: instant('used_at'),
    usedByUserId: text('used_by_user_id'),
    banned: flag('banned').notNull(),
  },
  // used_by_user_id: every authenticated request looks up the licenses its user redeemed.
  (t) => [index('licenses_app_idx').on(t.applicationId), index('licenses_used_by_idx').on(t.usedByUserId)],
);

export const adjustments = sqliteTable(
  'adjustments',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    userId: userRef(),
    type: text('type').notNull(),
    occurredAt: instant('occurred_at').notNull(),
    minutes: integer('minutes', { mode: 'number' }),
    grantsLifetime: flag('grants_lifetime').notNull(),
    revokesLifetime: flag('revokes_lifetime').notNull(),
    licenseId: text('license_id'),
    reason: text('reason'),
  },
  (t) => [index('adjustments_user_idx').on(t.userId)],
);

export const userIps = sqliteTable(
  'user_ips',
  {
    userId: userRef(),
    ip: text('ip').notNull(),
    firstSeen: instant('first_seen').notNull(),
    lastSeen: instant('last_seen').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.ip] })],
);

export const variables = sqliteTable(
  'variables',
  {
    applicationId: appRef(),
    name: text('name').notNull(),
    value: text('value').notNull(),
    isPublic: flag('is_public').notNull(),
  },
  (t) => [primaryKey({ columns: [t.applicationId, t.name] })],
);

export const announcements = sqliteTable(
  'announcements',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    title: text('title').notNull(),
    contentHtml: text('content_html').notNull(),
    status: text('status').notNull(),
    publishFrom: instant('publish_from').notNull(),
    publishUntil: instant('publish_until'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('announcements_app_idx').on(t.applicationId)],
);

export const bans = sqliteTable(
  'bans',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    type: text('type').notNull(),
    value: text('value').notNull(),
    reason: text('reason'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [unique('bans_app_type_value_uq').on(t.applicationId, t.type, t.value)],
);

// Throttle counters are scoped by application id, or by CONSOLE_THROTTLE_SCOPE for owner sign-in,
// so they carry no foreign key; deleteApplication removes an application's counters itself.
export const authAccountCounters = sqliteTable(
  'auth_account_counters',
  {
    applicationId: text('application_id').notNull(),
    accountKey: text('account_key').notNull(),
    failures: integer('failures', { mode: 'number' }).notNull(),
    lockedUntil: instant('locked_until'),
    lockouts: integer('lockouts', { mode: 'number' }).notNull(),
    inFlight: integer('in_flight', { mode: 'number' }).notNull().default(0),
    inFlightUntil: instant('in_flight_until'),
  },
  (t) => [primaryKey({ columns: [t.applicationId, t.accountKey] })],
);

export const authIpCounters = sqliteTable(
  'auth_ip_counters',
  {
    applicationId: text('application_id').notNull(),
    ip: text('ip').notNull(),
    windowStart: instant('window_start').notNull(),
    failures: integer('failures', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.applicationId, t.ip] })],
);

// A file's stored contents are all of stored_blob_key, size_bytes, sha256, stored_size_bytes,
// stored_sha256 and stored_encrypted, or none of them (nothing stored yet).
export const files = sqliteTable(
  'files',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    name: text('name').notNull(),
    isPublic: flag('is_public').notNull(),
    mimeType: text('mime_type').notNull(),
    originalFilename: text('original_filename').notNull(),
    storeEncrypted: flag('store_encrypted').notNull(),
    source: text('source').notNull(),
    processingStatus: text('processing_status').notNull(),
    processingError: text('processing_error'),
    // No foreign key: jobs point at files, and a settled file awaits none.
    pendingJobId: text('pending_job_id'),
    storedBlobKey: text('stored_blob_key'),
    sizeBytes: integer('size_bytes', { mode: 'number' }),
    sha256: text('sha256'),
    storedSizeBytes: integer('stored_size_bytes', { mode: 'number' }),
    storedSha256: text('stored_sha256'),
    storedEncrypted: flag('stored_encrypted'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    unique('files_app_name_uq').on(t.applicationId, t.name),
    check(
      'files_stored_together',
      sql.join([t.sizeBytes, t.sha256, t.storedSizeBytes, t.storedSha256, t.storedEncrypted].map((c) => sql`(${t.storedBlobKey} is null) = (${c} is null)`), sql` and `),
    ),
  ],
);

export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    applicationId: appRef(),
    fileId: text('file_id')
      .notNull()
      .references(() => files.id, { onDelete: 'cascade' }),
    stagingKey: text('staging_key').notNull(),
    outputKey: text('output_key').notNull(),
    encrypt: flag('encrypt').notNull(),
    attempts: integer('attempts', { mode: 'number' }).notNull(),
    runAfter: instant('run_after').notNull(),
    leaseUntil: instant('lease_until'),
    leaseOwner: text('lease_owner'),
    createdAt: instant('created_at').notNull(),
    // Insertion order, the last tie-break of claiming: PostgreSQL has no rowid, so both schemas
    // carry it. Written as one more than the largest present (under BEGIN IMMEDIATE, so unique).
    seq: integer('seq', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('jobs_run_after_idx').on(t.runAfter), index('jobs_file_idx').on(t.fileId)],
);
