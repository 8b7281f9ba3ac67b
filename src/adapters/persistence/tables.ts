// The tables of the Store, written once for both dialects: each dialect's schema module calls
// defineTables with its own column kit, so the two schemas cannot drift apart
// (docs/architecture.md, "Tables"; adding a table or a column: the sections after it).
import { sql } from 'drizzle-orm';
import type { AnyPgColumn, check, index, PgBigInt53BuilderInitial, PgBooleanBuilderInitial, PgIntegerBuilderInitial, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';

type Number53 = PgBigInt53BuilderInitial<string>;

// What a table needs from a dialect, typed as PostgreSQL's builders: the store's queries are typed
// against one dialect's tables (dialect.ts), and the SQLite kit builds the same shape behind it.
export interface Kit {
  table: typeof pgTable;
  text: typeof text;
  /** A small integer (counts, minutes, limits). */
  integer: (name: string) => PgIntegerBuilderInitial<string>;
  /** An instant: epoch milliseconds. */
  instant: (name: string) => Number53;
  /** A count that may pass 2^31 (byte sizes). */
  bigNumber: (name: string) => Number53;
  flag: (name: string) => PgBooleanBuilderInitial<string>;
  // Numbers rows in insertion order, an ordering's last tie-break (PostgreSQL: an identity column;
  // SQLite: written by the insert, see insertionOrder in dialect.ts).
  insertionOrder: (name: string) => ReturnType<ReturnType<Number53['notNull']>['generatedAlwaysAsIdentity']>;
  index: typeof index;
  unique: typeof unique;
  primaryKey: typeof primaryKey;
  check: typeof check;
}

export function defineTables(k: Kit) {
  // A reference to another table's row, deleted with it.
  const cascade = (name: string, target: () => AnyPgColumn) => k.text(name).notNull().references(target, { onDelete: 'cascade' });
  const owners = k.table('owners', {
    id: k.text('id').primaryKey(),
    email: k.text('email').notNull().unique(),
    passwordHash: k.text('password_hash').notNull(),
    createdAt: k.instant('created_at').notNull(),
  });

  const consoleTokens = k.table(
    'console_tokens',
    {
      id: k.text('id').primaryKey(),
      ownerId: cascade('owner_id', () => owners.id),
      digest: k.text('digest').notNull().unique(),
      createdAt: k.instant('created_at').notNull(),
      revokedAt: k.instant('revoked_at'),
      // Browser (cookie) sessions end 12 hours after sign-in; CLI and API tokens never (null):
      // those end after GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS unused, counted from last_used_at.
      expiresAt: k.instant('expires_at'),
      /** `bearer` (login, CLI) or `cookie` (browser session). Rows from before the column: bearer. */
      kind: k.text('kind').notNull().default('bearer'),
      /** The last request it authenticated, written at most once a minute; null: never used. */
      lastUsedAt: k.instant('last_used_at'),
    },
    (t) => [k.index('console_tokens_owner_idx').on(t.ownerId)],
  );

  // The addresses an owner has signed in from: such an owner is not held by the hourly lock that
  // strangers' guesses put on the account everywhere (docs/choices.md, "Throttling").
  const ownerIps = k.table(
    'owner_ips',
    {
      ownerId: cascade('owner_id', () => owners.id),
      ip: k.text('ip').notNull(),
      firstSeen: k.instant('first_seen').notNull(),
      lastSeen: k.instant('last_seen').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.ownerId, t.ip] })],
  );

  const applications = k.table(
    'applications',
    {
      id: k.text('id').primaryKey(),
      ownerId: cascade('owner_id', () => owners.id),
      name: k.text('name').notNull(),
      anonymousAccess: k.flag('anonymous_access').notNull(),
      deviceAuth: k.flag('device_auth').notNull(),
      legacyAuth: k.flag('legacy_auth').notNull(),
      tokenAuth: k.flag('token_auth').notNull(),
      sessionTtlSeconds: k.integer('session_ttl_seconds').notNull(),
      defaultAllowedDevices: k.integer('default_allowed_devices').notNull(),
      defaultAllowedSessions: k.integer('default_allowed_sessions').notNull(),
      banPropagation: k.flag('ban_propagation').notNull(),
      // Existing applications take the default, off (docs/choices.md, "Bans").
      banPropagationToAddresses: k.flag('ban_propagation_to_addresses').notNull().default(false),
      // Null: IP bans made by propagation never expire. Existing applications take the default.
      propagatedIpBanHours: k.integer('propagated_ip_ban_hours').default(24),
      passwordMinLength: k.integer('password_min_length').notNull(),
      // Existing applications take the defaults (docs/api.md, Response signing).
      responseSigning: k.flag('response_signing').notNull().default(true),
      requestSigning: k.flag('request_signing').notNull().default(false),
      signatureWindowSeconds: k.integer('signature_window_seconds').notNull().default(10),
      // Existing applications take the default, 14 days (docs/signing.md, Offline license files).
      licenseFileTtlMinutes: k.integer('license_file_ttl_minutes').notNull().default(20160),
      // Existing applications take the defaults (docs/api.md, User variables; Device reset: off).
      maxUserVariables: k.integer('max_user_variables').notNull().default(100),
      deviceResetCooldownHours: k.integer('device_reset_cooldown_hours'),
      // Null: not limited per application, also for existing ones (docs/choices.md, "Throttling").
      signUpsPerHour: k.integer('sign_ups_per_hour'),
      // Existing applications take the default, 7 days (docs/events.md, membership.expiring).
      expiryNoticeDays: k.integer('expiry_notice_days').notNull().default(7),
      // The base plan start_trial grants; null: no trial offered (docs/plans.md, "Trials").
      trialPlanId: k.text('trial_plan_id'),
      // Null: heartbeats off (docs/machines.md, "Heartbeats and leases").
      heartbeatSeconds: k.integer('heartbeat_seconds'),
      // Null: no refresh tokens; existing applications take the default, 30 days.
      refreshTtlDays: k.integer('refresh_ttl_days').default(30),
      apiKey: k.text('api_key').notNull().unique(),
      apiSecretDigest: k.text('api_secret_digest').notNull(),
      adminApiKeyDigest: k.text('admin_api_key_digest').notNull().unique(),
      filesKeySealed: k.text('files_key_sealed').notNull(),
      // Signing keys, set and cleared in pairs (docs/architecture.md, "Tables").
      responseSigningPublicKey: k.text('response_signing_public_key'),
      responseSigningPrivateKeySealed: k.text('response_signing_private_key_sealed'),
      previousResponseSigningPublicKey: k.text('previous_response_signing_public_key'),
      previousResponseSigningPrivateKeySealed: k.text('previous_response_signing_private_key_sealed'),
      requestSigningKeySealed: k.text('request_signing_key_sealed'),
      previousRequestSigningKeySealed: k.text('previous_request_signing_key_sealed'),
      previousRequestSigningKeyReplacedAt: k.instant('previous_request_signing_key_replaced_at'),
      // Bumped by triggers on writes of the application's content (docs/choices.md, "The content cache").
      contentVersion: k.bigNumber('content_version').notNull().default(0),
      // Bumped the same way on writes of the application's bans (docs/choices.md, "Bans").
      bansVersion: k.bigNumber('bans_version').notNull().default(0),
      createdAt: k.instant('created_at').notNull(),
    },
    (t) => [k.index('applications_owner_idx').on(t.ownerId)],
  );

  const applicationsId = () => applications.id;
  const appRef = () => cascade('application_id', applicationsId);
  // A table of one row per application.
  const appKey = () => k.text('application_id').primaryKey().references(applicationsId, { onDelete: 'cascade' });

  const users = k.table(
    'users',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      username: k.text('username').notNull(),
      usernameKey: k.text('username_key').notNull(),
      credentialType: k.text('credential_type').notNull(),
      passwordHash: k.text('password_hash'),
      // No foreign key: a used license is never deleted, and licenses point back at users.
      licenseId: k.text('license_id'),
      // The owner's caps for this user; null: none set, the base plan's or the application's apply
      // (docs/plans.md, "Caps"). Users signed up before keep their numbers, as overrides.
      allowedDevices: k.integer('allowed_devices'),
      allowedSessions: k.integer('allowed_sessions'),
      activeUntil: k.instant('active_until'),
      isLifetime: k.flag('is_lifetime').notNull(),
      timedOutUntil: k.instant('timed_out_until'),
      timeoutReason: k.text('timeout_reason'),
      lastIp: k.text('last_ip'),
      createdAt: k.instant('created_at').notNull(),
      // The user's last reset of their own devices (docs/api.md, POST /reset_devices); null: never.
      lastDeviceResetAt: k.instant('last_device_reset_at'),
      // The membership's base plan, null without one; no foreign key: a plan in use is never deleted.
      planId: k.text('plan_id'),
      /** JSON array of the entitlement codes the owner granted directly, sorted and without repeats. */
      entitlements: k.text('entitlements').notNull().default('[]'),
      // When the user started the application's trial; null: never (docs/plans.md, "Trials").
      trialStartedAt: k.instant('trial_started_at'),
      // Set with the user's first add-on grant: membership answers read add_on_grants only then
      // (docs/plans.md, "Entitlements").
      holdsAddOns: k.flag('holds_add_ons').notNull().default(false),
    },
    (t) => [
      k.unique('users_app_username_key_uq').on(t.applicationId, t.usernameKey),
      k.index('users_app_license_idx').on(t.applicationId, t.licenseId),
      // The console overview counts sign-ups per day of one application.
      k.index('users_app_created_idx').on(t.applicationId, t.createdAt),
      // The expiry scheduler finds memberships ending around now (store/membership-notice-store.ts).
      k.index('users_active_until_idx').on(t.activeUntil),
    ],
  );

  const userRef = () => cascade('user_id', () => users.id);

  // The expiry notices sent, one per kind and period (docs/plans.md, "Expiry notices"): the key lets
  // one of several instances insert it, and only that one records the event. Deleted with the user.
  const membershipNotices = k.table(
    'membership_notices',
    {
      applicationId: appRef(),
      userId: userRef(),
      /** `expiring` or `expired`. */
      kind: k.text('kind').notNull(),
      /** The period's end: the membership's active_until when the notice was sent. */
      periodEnd: k.instant('period_end').notNull(),
      createdAt: k.instant('created_at').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.userId, t.kind, t.periodEnd] })],
  );

  const devices = k.table(
    'devices',
    {
      id: k.text('id').primaryKey(),
      userId: userRef(),
      hardwareId: k.text('hardware_id').notNull(),
      // Also the device's first_seen_at (docs/machines.md, "Devices").
      registeredAt: k.instant('registered_at').notNull(),
      name: k.text('name'),
      platform: k.text('platform'),
      appVersion: k.text('app_version'),
      // Moved at most once a minute; devices registered before take registered_at (the migration).
      lastSeenAt: k.instant('last_seen_at'),
      // Shown to the owner only.
      lastIp: k.text('last_ip'),
    },
    (t) => [k.unique('devices_user_hardware_uq').on(t.userId, t.hardwareId)],
  );

  // Offline license files as issued (docs/signing.md, Offline license files): a file bound to a
  // machine holds a device slot until it expires, whatever happens to the device row meanwhile.
  const licenseFiles = k.table(
    'license_files',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      userId: userRef(),
      hardwareId: k.text('hardware_id'),
      issuedAt: k.instant('issued_at').notNull(),
      expiresAt: k.instant('expires_at').notNull(),
      // Who issued it: end_user, owner or admin_key, and that user, owner or key's fingerprint.
      issuedByType: k.text('issued_by_type').notNull(),
      issuedById: k.text('issued_by_id').notNull(),
    },
    (t) => [k.index('license_files_user_expires_idx').on(t.userId, t.expiresAt)],
  );

  const sessions = k.table(
    'sessions',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      userId: userRef(),
      hardwareId: k.text('hardware_id'),
      tokenDigest: k.text('token_digest').notNull(),
      createdAt: k.instant('created_at').notNull(),
      expiresAt: k.instant('expires_at').notNull(),
      revokedAt: k.instant('revoked_at'),
      // An internal session held by legacy header authentication (no token was issued for it).
      legacy: k.flag('legacy').notNull().default(false),
      // A legacy seat's caller address: the seat is (user, hardware id, address), not the asserted id alone.
      address: k.text('address'),
      // With heartbeats required: the session counts and answers only until then (docs/machines.md).
      leaseExpiresAt: k.instant('lease_expires_at'),
      // The login (refresh family) the session descends from, ended with it on reuse.
      refreshFamilyId: k.text('refresh_family_id'),
      // The floating license whose seat the session holds; borrowed: held for a machine offline.
      floatingLicenseId: k.text('floating_license_id'),
      borrowed: k.flag('borrowed').notNull().default(false),
    },
    // What each index serves: docs/architecture.md, "Tables".
    (t) => [
      k
        .index('sessions_floating_live_idx')
        .on(t.floatingLicenseId, t.expiresAt)
        .where(sql`${t.revokedAt} is null and ${t.floatingLicenseId} is not null`),
      k.index('sessions_refresh_family_idx').on(t.refreshFamilyId),
      k
        .index('sessions_user_live_idx')
        .on(t.userId, t.expiresAt)
        .where(sql`${t.revokedAt} is null`),
      k.index('sessions_user_expires_idx').on(t.userId, t.expiresAt),
      k.index('sessions_expires_idx').on(t.expiresAt),
    ],
  );

  // Logins (sessions opened) per application and UTC day, counted in the transaction that opens
  // the session: the console overview reads these, so ended sessions can be purged.
  const loginDays = k.table(
    'login_days',
    {
      applicationId: appRef(),
      // The UTC midnight the day starts at.
      day: k.instant('day').notNull(),
      logins: k.integer('logins').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.day] })],
  );

  const licenses = k.table(
    'licenses',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      // Unique across the service, not per application: a code identifies one license anywhere.
      codeDigest: k.text('code_digest').notNull().unique(),
      codeSealed: k.text('code_sealed').notNull(),
      minutes: k.integer('minutes'),
      note: k.text('note'),
      createdAt: k.instant('created_at').notNull(),
      usedAt: k.instant('used_at'),
      usedByUserId: k.text('used_by_user_id'),
      banned: k.flag('banned').notNull(),
      // The plan it grants (null: a minutes license), its seats and how many users redeemed it.
      planId: k.text('plan_id'),
      seats: k.integer('seats').notNull().default(1),
      redemptions: k.integer('redemptions').notNull().default(0),
      // When seat.exhausted was last emitted for this license: at most once a minute.
      seatExhaustedAt: k.instant('seat_exhausted_at'),
    },
    // used_by_user_id: every authenticated request looks up the licenses its user redeemed.
    (t) => [k.index('licenses_app_idx').on(t.applicationId), k.index('licenses_used_by_idx').on(t.usedByUserId)],
  );

  // Plans (docs/plans.md): a name is unique in its application as stored (trimmed), as file names are.
  const plans = k.table(
    'plans',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      name: k.text('name').notNull(),
      kind: k.text('kind').notNull(),
      durationMinutes: k.integer('duration_minutes'),
      /** JSON array of entitlement codes, sorted and without repeats. */
      entitlements: k.text('entitlements').notNull(),
      maxDevices: k.integer('max_devices'),
      maxSessions: k.integer('max_sessions'),
      seats: k.integer('seats').notNull(),
      graceMinutes: k.integer('grace_minutes').notNull(),
      trial: k.flag('trial').notNull(),
      floating: k.flag('floating').notNull(),
      maxBorrowMinutes: k.integer('max_borrow_minutes').notNull(),
      archived: k.flag('archived').notNull(),
      createdAt: k.instant('created_at').notNull(),
      updatedAt: k.instant('updated_at').notNull(),
    },
    (t) => [k.unique('plans_app_name_uq').on(t.applicationId, t.name)],
  );

  // Each redemption of a plan's license, one per user (docs/plans.md, "Seats"): counted under the
  // license's lock, and what it added, so releasing the seat takes back exactly that. Kept when
  // the user is deleted: the seat stays taken until the owner releases it.
  const licenseRedemptions = k.table(
    'license_redemptions',
    {
      licenseId: k
        .text('license_id')
        .notNull()
        .references(() => licenses.id, { onDelete: 'cascade' }),
      applicationId: appRef(),
      userId: k.text('user_id').notNull(),
      redeemedAt: k.instant('redeemed_at').notNull(),
      /** The membership's plan before a base plan's redemption; restored on release while it holds. */
      planFrom: k.text('plan_from'),
      /** The minutes it added; null: it granted lifetime. */
      minutes: k.integer('minutes'),
    },
    (t) => [k.primaryKey({ columns: [t.licenseId, t.userId] }), k.index('license_redemptions_user_idx').on(t.userId)],
  );

  // A user's grant of an add-on plan's entitlements (docs/plans.md, "Add-ons"): one row per add-on,
  // replaced when a redemption stacks on it; ends_at null never ends.
  const addOnGrants = k.table(
    'add_on_grants',
    {
      applicationId: appRef(),
      userId: userRef(),
      planId: k.text('plan_id').notNull(),
      endsAt: k.instant('ends_at'),
      grantedAt: k.instant('granted_at').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.userId, t.planId] })],
  );

  // The keyed digest of every hardware id that started the application's trial: no user reference,
  // so deleting or resetting the user keeps it (docs/plans.md, "Trials").
  const trialLedger = k.table(
    'trial_ledger',
    {
      applicationId: appRef(),
      hardwareDigest: k.text('hardware_digest').notNull(),
      startedAt: k.instant('started_at').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.hardwareDigest] })],
  );

  // Refresh tokens (docs/machines.md, "Lasting sessions"): kept as keyed digests; a family is one
  // login's chain of rotations, revoked whole when a spent token comes back.
  const refreshTokens = k.table(
    'refresh_tokens',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      userId: userRef(),
      familyId: k.text('family_id').notNull(),
      hardwareId: k.text('hardware_id').notNull(),
      tokenDigest: k.text('token_digest').notNull().unique(),
      // The session issued with it.
      sessionId: k.text('session_id'),
      issuedAt: k.instant('issued_at').notNull(),
      expiresAt: k.instant('expires_at').notNull(),
      spentAt: k.instant('spent_at'),
      revokedAt: k.instant('revoked_at'),
    },
    (t) => [k.index('refresh_tokens_family_idx').on(t.familyId), k.index('refresh_tokens_user_idx').on(t.userId, t.hardwareId)],
  );

  const adjustments = k.table(
    'adjustments',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      userId: userRef(),
      type: k.text('type').notNull(),
      occurredAt: k.instant('occurred_at').notNull(),
      minutes: k.integer('minutes'),
      grantsLifetime: k.flag('grants_lifetime').notNull(),
      revokesLifetime: k.flag('revokes_lifetime').notNull(),
      licenseId: k.text('license_id'),
      reason: k.text('reason'),
      // The base plans a redemption moved the membership from and to; null when it kept its plan.
      planFrom: k.text('plan_from'),
      planTo: k.text('plan_to'),
    },
    (t) => [k.index('adjustments_user_idx').on(t.userId)],
  );

  const userIps = k.table(
    'user_ips',
    {
      userId: userRef(),
      ip: k.text('ip').notNull(),
      firstSeen: k.instant('first_seen').notNull(),
      lastSeen: k.instant('last_seen').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.userId, t.ip] })],
  );

  const variables = k.table(
    'variables',
    {
      applicationId: appRef(),
      name: k.text('name').notNull(),
      value: k.text('value').notNull(),
      isPublic: k.flag('is_public').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.name] })],
  );

  // Variables of one end user (docs/api.md, User variables), deleted with the user. The count per
  // user is decided under the user's row lock (store/user-variable-store.ts).
  const userVariables = k.table(
    'user_variables',
    {
      applicationId: appRef(),
      userId: userRef(),
      name: k.text('name').notNull(),
      value: k.text('value').notNull(),
      updatedAt: k.instant('updated_at').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.userId, t.name] })],
  );

  const announcements = k.table(
    'announcements',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      title: k.text('title').notNull(),
      contentHtml: k.text('content_html').notNull(),
      status: k.text('status').notNull(),
      publishFrom: k.instant('publish_from').notNull(),
      publishUntil: k.instant('publish_until'),
      createdAt: k.instant('created_at').notNull(),
    },
    (t) => [k.index('announcements_app_idx').on(t.applicationId)],
  );

  const bans = k.table(
    'bans',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      type: k.text('type').notNull(),
      value: k.text('value').notNull(),
      reason: k.text('reason'),
      createdAt: k.instant('created_at').notNull(),
      // The ban whose refusal made this one by propagation (null: an owner made it). No foreign
      // key: the origin may be deleted alone, and this ban still must not propagate.
      propagatedFrom: k.text('propagated_from'),
      // Propagated IP bans stop holding then; null: until deleted.
      expiresAt: k.instant('expires_at'),
    },
    (t) => [
      k.unique('bans_app_type_value_uq').on(t.applicationId, t.type, t.value),
      // A cascading delete finds what a ban propagated.
      k.index('bans_app_propagated_from_idx').on(t.applicationId, t.propagatedFrom),
    ],
  );

  // Failures and locks of an account from one network, `ip` its networkBucket (docs/choices.md,
  // "Throttling"). Throttle counters carry no foreign key (docs/architecture.md, "Tables").
  const authAccountCounters = k.table(
    'auth_account_address_counters',
    {
      applicationId: k.text('application_id').notNull(),
      accountKey: k.text('account_key').notNull(),
      ip: k.text('ip').notNull(),
      failures: k.integer('failures').notNull(),
      lockedUntil: k.instant('locked_until'),
      lockouts: k.integer('lockouts').notNull(),
      inFlight: k.integer('in_flight').notNull().default(0),
      inFlightUntil: k.instant('in_flight_until'),
      /** The last reservation or settlement: idle counters are purged (auth-throttle.ts, throttlePurgeCutoffs). */
      touchedAt: k.instant('touched_at').notNull().default(0),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.accountKey, t.ip] })],
  );

  // An account's failures from every address in the hour's window.
  const authAccountWindows = k.table(
    'auth_account_windows',
    {
      applicationId: k.text('application_id').notNull(),
      accountKey: k.text('account_key').notNull(),
      windowStart: k.instant('window_start').notNull(),
      failures: k.integer('failures').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.accountKey] })],
  );

  // Successful sign-ups in the hour's window, per application (scope `application`) and per
  // address bucket (scope `address:<bucket>`); domain/sign-up-limits.ts. A user's variable
  // writes count here too (scope `variable_writes:<user id>`).
  const signUpCounters = k.table(
    'sign_up_counters',
    {
      applicationId: k.text('application_id').notNull(),
      scope: k.text('scope').notNull(),
      windowStart: k.instant('window_start').notNull(),
      signUps: k.integer('sign_ups').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.scope] })],
  );

  const authIpCounters = k.table(
    'auth_ip_counters',
    {
      applicationId: k.text('application_id').notNull(),
      ip: k.text('ip').notNull(),
      windowStart: k.instant('window_start').notNull(),
      failures: k.integer('failures').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.ip] })],
  );

  // A file's stored contents are all of stored_blob_key, size_bytes, sha256, stored_size_bytes,
  // stored_sha256 and stored_encrypted, or none of them (nothing stored yet).
  const files = k.table(
    'files',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      name: k.text('name').notNull(),
      isPublic: k.flag('is_public').notNull(),
      mimeType: k.text('mime_type').notNull(),
      originalFilename: k.text('original_filename').notNull(),
      storeEncrypted: k.flag('store_encrypted').notNull(),
      source: k.text('source').notNull(),
      processingStatus: k.text('processing_status').notNull(),
      processingError: k.text('processing_error'),
      // No foreign key: jobs point at files, and a settled file awaits none.
      pendingJobId: k.text('pending_job_id'),
      storedBlobKey: k.text('stored_blob_key'),
      sizeBytes: k.bigNumber('size_bytes'),
      sha256: k.text('sha256'),
      storedSizeBytes: k.bigNumber('stored_size_bytes'),
      storedSha256: k.text('stored_sha256'),
      storedEncrypted: k.flag('stored_encrypted'),
      createdAt: k.instant('created_at').notNull(),
      updatedAt: k.instant('updated_at').notNull(),
    },
    (t) => [
      k.unique('files_app_name_uq').on(t.applicationId, t.name),
      k.check(
        'files_stored_together',
        sql.join(
          [t.sizeBytes, t.sha256, t.storedSizeBytes, t.storedSha256, t.storedEncrypted].map((c) => sql`(${t.storedBlobKey} is null) = (${c} is null)`),
          sql` and `,
        ),
      ),
    ],
  );

  const jobs = k.table(
    'jobs',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      fileId: cascade('file_id', () => files.id),
      stagingKey: k.text('staging_key').notNull(),
      outputKey: k.text('output_key').notNull(),
      encrypt: k.flag('encrypt').notNull(),
      attempts: k.integer('attempts').notNull(),
      runAfter: k.instant('run_after').notNull(),
      leaseUntil: k.instant('lease_until'),
      leaseOwner: k.text('lease_owner'),
      createdAt: k.instant('created_at').notNull(),
      // Insertion order, the last tie-break of claiming (each dialect numbers rows its own way, see Kit).
      seq: k.insertionOrder('seq'),
    },
    (t) => [k.index('jobs_run_after_idx').on(t.runAfter), k.index('jobs_file_idx').on(t.fileId)],
  );

  // Nonces of signed requests (docs/api.md, Request signing), each accepted once per application
  // (store/request-nonce-store.ts); a row stops counting at held_until, when the purge may delete it.
  const requestNonces = k.table(
    'request_nonces',
    {
      applicationId: appRef(),
      nonce: k.text('nonce').notNull(),
      heldUntil: k.instant('held_until').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.applicationId, t.nonce] }), k.index('request_nonces_held_until_idx').on(t.heldUntil)],
  );

  // The event outbox and audit log, one row per change (docs/events.md; docs/architecture.md, "Tables").
  const events = k.table(
    'events',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      // Insertion order: the audit log's paging order and the chainer's scan.
      pos: k.insertionOrder('pos'),
      occurredAt: k.instant('occurred_at').notNull(),
      action: k.text('action').notNull(),
      actorType: k.text('actor_type').notNull(),
      actorId: k.text('actor_id'),
      actorIp: k.text('actor_ip'),
      targetType: k.text('target_type').notNull(),
      targetId: k.text('target_id').notNull(),
      targetLabel: k.text('target_label'),
      /** JSON: the event's secret-free facts, or (data_form 'rendered', rows written before facts) the data webhooks deliver. */
      data: k.text('data').notNull(),
      /** 'facts' or 'rendered': how `data` and `changes` are stored (docs/choices.md, "Events are data"). */
      dataForm: k.text('data_form').notNull().default('rendered'),
      /** JSON `{field: [before, after]}`, or null. */
      changes: k.text('changes'),
      outcome: k.text('outcome').notNull(),
      seq: k.bigNumber('seq'),
      /** The chain link once linked; 'unlinked' on a row the chainer refused (its seal did not verify). */
      hash: k.text('hash'),
      /** 1 until the delivery workers have made its webhook deliveries (store/webhook-fan-out.ts); else null. */
      webhookPending: k.integer('webhook_pending'),
      /** HMAC of the entry under the chain's key, written with the row: the chainer links only sealed rows. */
      seal: k.text('seal'),
    },
    (t) => [
      k.index('events_webhook_pending_idx').on(t.webhookPending, t.pos),
      k.unique('events_app_seq_uq').on(t.applicationId, t.seq),
      k.index('events_unchained_idx').on(t.seq, t.pos),
      k.index('events_pos_idx').on(t.pos),
      k.index('events_app_pos_idx').on(t.applicationId, t.pos),
      k.index('events_app_target_idx').on(t.applicationId, t.targetId, t.pos),
    ],
  );

  // The head of each application's audit chain: the last linked entry's seq and hash, so removing
  // the newest entries is noticed too (docs/events.md, Tamper evidence). `keyed`: the last link
  // was keyed; a chain made before keying is re-anchored once (audit.rekeyed).
  const auditChainHeads = k.table('audit_chain_heads', {
    applicationId: appKey(),
    seq: k.bigNumber('seq').notNull(),
    hash: k.text('hash').notNull(),
    keyed: k.flag('keyed').notNull().default(false),
  });

  // Webhook endpoints (docs/events.md, Webhooks). The signing secret is sealed under the master
  // key, as the other application secrets are; while a secret rotates, the previous one signs too
  // until previous_secret_until.
  const webhookEndpoints = k.table(
    'webhook_endpoints',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      url: k.text('url').notNull(),
      /** JSON array of event names, or ["*"]. */
      events: k.text('events').notNull(),
      description: k.text('description'),
      enabled: k.flag('enabled').notNull(),
      secretSealed: k.text('secret_sealed').notNull(),
      previousSecretSealed: k.text('previous_secret_sealed'),
      previousSecretUntil: k.instant('previous_secret_until'),
      /** Set when a delivery exhausted its attempts; cleared by the next success. */
      failingSince: k.instant('failing_since'),
      /** Why the endpoint was disabled by Gatehouse (a 410), or null. */
      disabledReason: k.text('disabled_reason'),
      createdAt: k.instant('created_at').notNull(),
      updatedAt: k.instant('updated_at').notNull(),
    },
    (t) => [k.index('webhook_endpoints_app_idx').on(t.applicationId)],
  );

  // One delivery per (endpoint, event): the unique pair makes a second fan-out of an event a
  // no-op. Deliveries are their own durable queue, claimed under a lease as jobs are.
  const webhookDeliveries = k.table(
    'webhook_deliveries',
    {
      id: k.text('id').primaryKey(),
      applicationId: appRef(),
      endpointId: cascade('endpoint_id', () => webhookEndpoints.id),
      eventId: cascade('event_id', () => events.id),
      /** `pending`, `succeeded` or `failed` (attempts exhausted, endpoint disabled). */
      state: k.text('state').notNull(),
      attempts: k.integer('attempts').notNull(),
      runAfter: k.instant('run_after').notNull(),
      leaseUntil: k.instant('lease_until'),
      leaseOwner: k.text('lease_owner'),
      createdAt: k.instant('created_at').notNull(),
      updatedAt: k.instant('updated_at').notNull(),
    },
    (t) => [
      k.unique('webhook_deliveries_endpoint_event_uq').on(t.endpointId, t.eventId),
      k.index('webhook_deliveries_due_idx').on(t.state, t.runAfter),
      k.index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    ],
  );

  // Every attempt of a delivery, for the console: its answer's status, latency, error and the
  // first 2 KB of its body.
  const webhookAttempts = k.table(
    'webhook_attempts',
    {
      id: k.text('id').primaryKey(),
      deliveryId: cascade('delivery_id', () => webhookDeliveries.id),
      attemptedAt: k.instant('attempted_at').notNull(),
      statusCode: k.integer('status_code'),
      latencyMs: k.integer('latency_ms').notNull(),
      error: k.text('error'),
      responseBody: k.text('response_body'),
    },
    (t) => [k.index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptedAt)],
  );

  // Each application's test sends in its current minute (domain/webhook-limits.ts).
  const webhookTestWindows = k.table('webhook_test_windows', {
    applicationId: appKey(),
    windowStart: k.instant('window_start').notNull(),
    sends: k.integer('sends').notNull(),
  });

  // prettier-ignore
  return { owners, consoleTokens, ownerIps, applications, users, membershipNotices, devices, licenseFiles, sessions, loginDays, licenses, plans, licenseRedemptions, addOnGrants, trialLedger, refreshTokens, adjustments, userIps, variables, userVariables, announcements, bans, authAccountCounters, authAccountWindows, authIpCounters, signUpCounters, requestNonces, files, jobs, events, auditChainHeads, webhookEndpoints, webhookDeliveries, webhookAttempts, webhookTestWindows };
}

export type Tables = ReturnType<typeof defineTables>;
