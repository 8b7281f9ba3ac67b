// Every JSON shape Gatehouse answers with, once (docs/api.md, API reference): the views return
// their Static types, the routes serialise with them and openapi.ts is generated from them.
// Pure TypeBox: nothing here depends on the server.
import { Type, type Static, type TSchema } from 'typebox';

const closed = { additionalProperties: false } as const;
const Instant = Type.String({ format: 'date-time', examples: ['2030-01-01T00:00:00.000Z'] });
const Id = Type.String({ format: 'uuid', examples: ['6f1c0a52-3d8e-4c1b-9a57-0d2f3e4b5c6d'] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** `{error_code, message, detail}` and the fields some codes add (docs/api.md, Errors). */
export const ErrorBody = Type.Object(
  {
    error_code: Type.String({ pattern: '^[A-Z_]+$' }),
    message: Type.String(),
    detail: Type.String(),
    timed_out_until: Type.Optional(Instant),
    reason: Type.Optional(Type.String()),
    next_reset_at: Type.Optional(Instant),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }, closed))),
  },
  { ...closed, title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const Status = Type.Object({ status: Type.Enum(['ok', 'ready']) }, { ...closed, examples: [{ status: 'ok' }] });

/** The membership's time alone, as events show it (docs/events.md). */
export const MembershipTime = Type.Object({ is_active: Type.Boolean(), is_lifetime: Type.Boolean(), active_until: Nullable(Instant) }, closed);

/** The membership as every answer shows it (docs/api.md, API reference): its time, its base plan,
 * the user's entitlements and the grace (docs/plans.md, "Entitlements" and "Grace"). */
export const Membership = Type.Object(
  {
    ...MembershipTime.properties,
    plan: Nullable(Type.Object({ id: Id, name: Type.String() }, closed)),
    entitlements: Type.Array(Type.String()),
    in_grace: Type.Boolean(),
    grace_ends_at: Nullable(Instant),
  },
  closed,
);

const membershipExample = {
  is_active: true,
  is_lifetime: false,
  active_until: '2030-01-31T00:00:00.000Z',
  plan: { id: '0b7e3c1a-5f2d-4e8b-9c6a-1d2e3f4a5b6c', name: 'Pro' },
  entitlements: ['export', 'sync'],
  in_grace: false,
  grace_ends_at: null,
};

export const UserSummary = Type.Object(
  { id: Id, username: Type.String(), membership: Membership },
  {
    ...closed,
    title: 'UserSummary',
    examples: [{ id: '6f1c0a52-3d8e-4c1b-9a57-0d2f3e4b5c6d', username: 'alice', membership: membershipExample }],
  },
);

export const LicenseFile = Type.Object(
  { license_file: Type.String(), expires_at: Instant },
  { ...closed, title: 'LicenseFile', examples: [{ license_file: '-----BEGIN GATEHOUSE LICENSE FILE-----\n...', expires_at: '2030-01-15T00:00:00.000Z' }] },
);

// Login answers the membership too, so a client knows its entitlements at once (docs/api.md, POST /auth/login).
export const Session = Type.Object(
  { session_token: Type.String(), expires_at: Instant, membership: Membership, refresh_token: Type.Optional(Type.String()), refresh_expires_at: Type.Optional(Instant) },
  { ...closed, examples: [{ session_token: 'gh_ses_...', expires_at: '2030-01-01T00:05:00.000Z', membership: membershipExample }] },
);

/** A heartbeat's answer: the session lives until lease_expires_at without another (docs/machines.md, "Heartbeats and leases"). */
export const Lease = Type.Object(
  { lease_expires_at: Instant, server_time: Instant },
  { ...closed, title: 'Lease', examples: [{ lease_expires_at: '2030-01-01T00:01:00.000Z', server_time: '2030-01-01T00:00:00.000Z' }] },
);

/** A refresh's answer: a new session and the next refresh token (docs/machines.md, "Refresh tokens"). */
export const RefreshedSession = Type.Object(
  { session_token: Type.String(), expires_at: Instant, refresh_token: Type.String(), refresh_expires_at: Instant, membership: Membership },
  {
    ...closed,
    examples: [{ session_token: 'gh_ses_...', expires_at: '2030-01-01T00:05:00.000Z', refresh_token: 'gh_rt_...', refresh_expires_at: '2030-01-31T00:00:00.000Z', membership: membershipExample }],
  },
);

export const NextReset = Type.Object({ next_reset_at: Instant }, { ...closed, examples: [{ next_reset_at: '2030-01-02T00:00:00.000Z' }] });

export const Adjustment = Type.Object(
  {
    id: Id,
    type: Type.Enum(['license', 'bulk', 'trial']),
    occurred_at: Instant,
    minutes: Nullable(Type.Integer()),
    grants_lifetime_access: Type.Boolean(),
    revokes_lifetime_access: Type.Boolean(),
    license_id: Nullable(Id),
    reason: Nullable(Type.String()),
    /** The base plans a redemption (or a seat's release) moved the membership from and to; null when it kept its plan. */
    plan_from: Nullable(Id),
    plan_to: Nullable(Id),
  },
  { ...closed, title: 'Adjustment' },
);

/** The answer of activate_license: the adjustment, and the membership as it now is. */
export const Activation = Type.Object({ ...Adjustment.properties, membership: Membership }, { ...closed, title: 'Activation' });

const CapSource = Type.Enum(['user', 'plan', 'application']);

// A device as the owner sees it: registered_at and first_seen_at are the same instant (docs/machines.md, "Devices").
export const Device = Type.Object(
  {
    id: Id,
    hardware_id: Type.String(),
    registered_at: Instant,
    name: Nullable(Type.String()),
    platform: Nullable(Type.String()),
    app_version: Nullable(Type.String()),
    first_seen_at: Instant,
    last_seen_at: Instant,
    last_ip: Nullable(Type.String()),
  },
  closed,
);

/** A device as its user sees it (GET /api/integration/devices): no hardware id nor address. */
export const OwnDevice = Type.Object(
  {
    id: Id,
    name: Nullable(Type.String()),
    platform: Nullable(Type.String()),
    app_version: Nullable(Type.String()),
    first_seen_at: Instant,
    last_seen_at: Instant,
    current: Type.Boolean(),
  },
  { ...closed, title: 'OwnDevice' },
);

const adminUserFields = {
  application_id: Id,
  id: Id,
  credential_type: Type.Enum(['username_password', 'license_code']),
  username: Type.String(),
  allowed_number_of_devices: Type.Integer(),
  allowed_number_of_simultaneous_sessions: Type.Integer(),
  // Where each cap in force comes from: the user's override, the base plan, or the application's default.
  caps_source: Type.Object({ devices: CapSource, sessions: CapSource }, closed),
  registered_devices: Type.Array(Device),
  // The membership fields every view shows (Membership), with whose it is and its history.
  membership: Type.Object({ application_id: Id, user_id: Id, ...Membership.properties, adjustments: Type.Array(Adjustment) }, closed),
  timed_out_until: Nullable(Instant),
  timeout_reason: Nullable(Type.String()),
  last_ip: Nullable(Type.String()),
  created_at: Instant,
};

/** The User object (docs/api.md, API reference; admin view). */
export const AdminUser = Type.Object(adminUserFields, { ...closed, title: 'User' });

export const UserVariable = Type.Object(
  { name: Type.String(), value: Type.String(), updated_at: Instant },
  { ...closed, title: 'UserVariable', examples: [{ name: 'save_slot', value: '{"level":3}', updated_at: '2030-01-01T00:00:00.000Z' }] },
);

/** The console's user page: the User with the user's variables and device resets. */
export const UserPage = Type.Object(
  {
    ...adminUserFields,
    variables: Type.Array(UserVariable),
    /** The entitlements the owner granted the user directly (PUT .../entitlements), apart from the plans'. */
    direct_entitlements: Type.Array(Type.String()),
    last_device_reset_at: Nullable(Instant),
    next_device_reset_at: Nullable(Instant),
  },
  { ...closed, title: 'UserPage' },
);

export const ResponseSigningKey = Type.Object({ response_signing_public_key: Nullable(Type.String()), response_signing_key_id: Nullable(Type.String()) }, closed);

export const Application = Type.Object(
  {
    id: Id,
    name: Type.String(),
    anonymous_access: Type.Boolean(),
    device_auth: Type.Boolean(),
    legacy_auth: Type.Boolean(),
    token_auth: Type.Boolean(),
    session_ttl_seconds: Type.Integer(),
    default_allowed_devices: Type.Integer(),
    default_allowed_sessions: Type.Integer(),
    ban_propagation: Type.Boolean(),
    ban_propagation_to_addresses: Type.Boolean(),
    propagated_ip_ban_hours: Nullable(Type.Integer()),
    password_min_length: Type.Integer(),
    response_signing: Type.Boolean(),
    request_signing: Type.Boolean(),
    signature_window_seconds: Type.Integer(),
    license_file_ttl_minutes: Type.Integer(),
    max_user_variables: Type.Integer(),
    device_reset_cooldown_hours: Nullable(Type.Integer()),
    sign_ups_per_hour: Nullable(Type.Integer()),
    expiry_notice_days: Type.Integer(),
    trial_plan_id: Nullable(Id),
    heartbeat_seconds: Nullable(Type.Integer()),
    refresh_ttl_days: Nullable(Type.Integer()),
    response_signing_public_key: Nullable(Type.String()),
    response_signing_key_id: Nullable(Type.String()),
    response_signing_previous_key_id: Nullable(Type.String()),
    api_key: Type.String(),
    created_at: Instant,
  },
  { ...closed, title: 'Application' },
);

export const ApplicationCredentials = Type.Object(
  {
    api_key: Type.String(),
    api_secret: Type.String(),
    admin_api_key: Type.String(),
    files_encryption_key: Type.String(),
    request_signing_key: Type.String(),
  },
  closed,
);

export const CreatedApplication = Type.Object({ application: Application, credentials: ApplicationCredentials }, closed);

/** The rotated credential, under its kind's name. */
export const RotatedCredential = Type.Object(
  { api_secret: Type.Optional(Type.String()), admin_api_key: Type.Optional(Type.String()), request_signing_key: Type.Optional(Type.String()) },
  { ...closed, minProperties: 1, maxProperties: 1 },
);

const licenseFields = {
  id: Id,
  code: Type.String({ examples: ['ABCD-EFGH-JKLM-NPQR'] }),
  minutes: Nullable(Type.Integer()),
  note: Nullable(Type.String()),
  created_at: Instant,
  used_at: Nullable(Instant),
  used_by_user_id: Nullable(Id),
  banned: Type.Boolean(),
  /** The plan it grants; null: a minutes license. */
  plan_id: Nullable(Id),
  /** How many users may redeem it: the plan's seats when it was made, 1 for a minutes license. */
  seats: Type.Integer({ examples: [5] }),
  /** How many users redeemed it. */
  redemptions: Type.Integer({ examples: [2] }),
};

export const License = Type.Object(licenseFields, { ...closed, title: 'License' });
export const IssuedLicenses = Type.Object({ licenses: Type.Array(License) }, closed);

/** One redemption of a plan's code (docs/api.md, Licenses): username null once the user is deleted. */
export const LicenseRedemption = Type.Object(
  { user_id: Id, username: Nullable(Type.String()), redeemed_at: Instant },
  { ...closed, title: 'LicenseRedemption', examples: [{ user_id: '9d3c0a51-6f0e-4a8e-9b1f-2f1f4c1e7a10', username: 'alice', redeemed_at: '2030-01-01T00:00:00.000Z' }] },
);

/** GET /api/admin/license/{code} (docs/api.md, GET /license/{code}). */
export const LicenseLookup = Type.Object({ application_id: Id, ...licenseFields, is_credentials_license: Type.Boolean() }, { ...closed, title: 'LicenseLookup' });

/** A plan of an application (docs/api.md, Plans); null caps take the application's defaults. */
export const Plan = Type.Object(
  {
    id: Id,
    name: Type.String({ examples: ['Pro'] }),
    kind: Type.Enum(['base', 'add_on']),
    /** null: lifetime. */
    duration_minutes: Nullable(Type.Integer({ examples: [43_200] })),
    entitlements: Type.Array(Type.String(), { examples: [['beta', 'export']] }),
    max_devices: Nullable(Type.Integer()),
    max_sessions: Nullable(Type.Integer()),
    seats: Type.Integer(),
    grace_minutes: Type.Integer(),
    trial: Type.Boolean(),
    floating: Type.Boolean(),
    max_borrow_minutes: Type.Integer(),
    archived: Type.Boolean(),
    created_at: Instant,
    updated_at: Instant,
  },
  { ...closed, title: 'Plan' },
);

export const Variable = Type.Object(
  { name: Type.String(), value: Type.String(), is_public: Type.Boolean() },
  { ...closed, title: 'Variable', examples: [{ name: 'latest_version', value: '2.4.1', is_public: true }] },
);

export const Announcement = Type.Object(
  {
    id: Id,
    title: Type.String(),
    content_html: Type.String(),
    publish_from: Instant,
    publish_until: Nullable(Instant),
    status: Type.Enum(['DRAFT', 'PUBLISHED', 'ARCHIVED']),
    publication_date: Type.String({ format: 'date' }),
  },
  { ...closed, title: 'Announcement' },
);

export const Ban = Type.Object(
  {
    id: Id,
    type: Type.Enum(['ip', 'hardware_id', 'license', 'user']),
    value: Type.String(),
    reason: Nullable(Type.String()),
    created_at: Instant,
    propagated_from: Nullable(Id),
    expires_at: Nullable(Instant),
  },
  { ...closed, title: 'Ban' },
);

export const AppContext = Type.Object(
  {
    application: Type.Object(
      {
        id: Id,
        name: Type.String(),
        variables: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, closed)),
        files: Type.Array(Type.Object({ id: Id, name: Type.String(), mime_type: Type.String(), is_encrypted: Type.Boolean() }, closed)),
      },
      closed,
    ),
    announcements: Type.Array(Announcement),
    user: Nullable(UserSummary),
    server_time: Instant,
  },
  { ...closed, title: 'AppContext' },
);

export const Overview = Type.Object(
  {
    users: Type.Integer(),
    active_memberships: Type.Integer(),
    licenses: Type.Object({ used: Type.Integer(), unused: Type.Integer() }, closed),
    storage_bytes: Type.Integer(),
    daily: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), sign_ups: Type.Integer(), logins: Type.Integer() }, closed)),
  },
  {
    ...closed,
    title: 'Overview',
    examples: [{ users: 12, active_memberships: 9, licenses: { used: 7, unused: 93 }, storage_bytes: 1048576, daily: [{ date: '2030-01-01', sign_ups: 0, logins: 3 }] }],
  },
);

/** The File object (docs/api.md, API reference). */
export const File = Type.Object(
  {
    id: Id,
    application_id: Id,
    name: Type.String(),
    is_public: Type.Boolean(),
    processing_status: Type.Enum(['PENDING', 'COMPLETED', 'FAILED']),
    storage_status: Type.Enum(['NOT_STORED', 'STORED']),
    mime_type: Type.String(),
    size_bytes: Nullable(Type.Integer()),
    storage_path: Nullable(Type.String()),
    original_filename: Type.String(),
    store_encrypted: Type.Boolean(),
    source: Type.Enum(['ADMIN_API', 'DASHBOARD']),
    created_at: Instant,
    sha256: Nullable(Type.String()),
    processing_error: Nullable(Type.String()),
    updated_at: Instant,
  },
  { ...closed, title: 'File' },
);

export const Owner = Type.Object({ id: Id, email: Type.String() }, closed);
export const OwnerLogin = Type.Object({ owner: Owner, token: Type.String() }, closed);
export const BrowserSession = Type.Object({ owner: Owner, csrf_token: Type.String() }, closed);
/** What the signed-out dashboard may know: whether any owner exists, nothing more. */
export const ConsoleSetup = Type.Object({ owner_exists: Type.Boolean() }, { ...closed, title: 'ConsoleSetup', examples: [{ owner_exists: true }] });

export const ConsoleToken = Type.Object(
  { id: Id, kind: Type.Enum(['bearer', 'cookie']), created_at: Instant, last_used_at: Nullable(Instant), expires_at: Nullable(Instant), current: Type.Boolean() },
  { ...closed, title: 'ConsoleToken' },
);

export const Revoked = Type.Object({ revoked: Type.Integer() }, { ...closed, examples: [{ revoked: 3 }] });
export const Adjusted = Type.Object({ adjusted: Type.Integer() }, { ...closed, examples: [{ adjusted: 12 }] });
export const UserTimeout = Type.Object({ timed_out_until: Instant, reason: Nullable(Type.String()) }, closed);

/** An audit log entry (docs/events.md, Audit log). */
export const AuditEntry = Type.Object(
  {
    id: Id,
    application_id: Id,
    occurred_at: Instant,
    action: Type.String({ examples: ['user.created'] }),
    actor: Type.Object({ type: Type.Enum(['owner', 'admin_key', 'end_user', 'system']), id: Nullable(Type.String()), ip: Nullable(Type.String()) }, closed),
    target: Type.Object({ type: Type.String(), id: Type.String(), label: Nullable(Type.String()) }, closed),
    // [before, after]; an array of two rather than a tuple, which the serialiser cannot write with unknown items.
    changes: Nullable(Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }))),
    outcome: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown()),
    /** The entry's place in the application's hash chain; null for a moment after the change. */
    seq: Nullable(Type.Integer()),
    hash: Nullable(Type.String()),
  },
  { ...closed, title: 'AuditEntry' },
);
/** An audit chain head signed with the application's key (docs/events.md, Anchoring the chain). */
export const AuditHead = Type.Object(
  {
    format: Type.Literal('gatehouse-audit-head-v1'),
    application_id: Type.String(),
    seq: Type.Integer(),
    hash: Type.String(),
    signed_at: Type.String(),
    key_id: Type.String(),
    signature: Type.String(),
  },
  { ...closed, title: 'AuditHead' },
);
// A page of the audit log, newest first; `next_cursor` is null on the last page. `names`: what the
// entries' user and license ids (and the owner's) stand for, outside the hashed entries.
export const AuditPage = Type.Object({ entries: Type.Array(AuditEntry), next_cursor: Nullable(Type.String()), names: Type.Record(Type.String(), Type.String()) }, closed);

/** A webhook endpoint (docs/events.md, Webhooks); its secret only in WebhookSecret. */
export const WebhookEndpoint = Type.Object(
  {
    id: Id,
    url: Type.String({ examples: ['https://example.com/hooks/gatehouse'] }),
    events: Type.Array(Type.String(), { examples: [['*']] }),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    /** Set when a delivery used up its attempts; cleared by the next success. */
    failing_since: Nullable(Instant),
    disabled_reason: Nullable(Type.String()),
    created_at: Instant,
    updated_at: Instant,
  },
  { ...closed, title: 'WebhookEndpoint' },
);
/** A new endpoint or a rotated secret: the signing secret, shown this once. */
export const WebhookWithSecret = Type.Object({ endpoint: WebhookEndpoint, secret: Type.String({ pattern: '^whsec_', examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }) }, closed);

export const WebhookAttempt = Type.Object(
  { attempted_at: Instant, status_code: Nullable(Type.Integer()), latency_ms: Type.Integer(), error: Nullable(Type.String()), response_body: Nullable(Type.String()) },
  closed,
);
export const WebhookDelivery = Type.Object(
  {
    id: Id,
    endpoint_id: Id,
    event_id: Id,
    event_type: Type.String(),
    state: Type.Enum(['pending', 'succeeded', 'failed']),
    attempts: Type.Array(WebhookAttempt),
    next_attempt_at: Nullable(Instant),
    created_at: Instant,
  },
  { ...closed, title: 'WebhookDelivery' },
);

/** The audit log export: one AuditEntry as JSON per line, newest first (docs/api.md, Audit log). */
export const AuditExport = Type.Unsafe<unknown>({ type: 'string', contentMediaType: 'application/x-ndjson' });

/** Bytes, not JSON: a file download (200 whole, 206 a range). */
export const FileBytes = Type.Unsafe<unknown>({ type: 'string', contentMediaType: 'application/octet-stream' });
/** No body (204, 304). */
export const NoBody = Type.Unsafe<undefined>({ type: 'null', description: 'no body' });
/** Prometheus' text format (docs/configuration.md, Metrics). */
export const MetricsText = Type.Unsafe<string>({ type: 'string', contentMediaType: 'text/plain' });
/** GET /api/openapi.json: an OpenAPI 3.1 document, sent as built (openapi.ts). */
export const OpenApiDocument = Type.Unsafe<string>({ type: 'object', title: 'OpenAPI 3.1 document' });
