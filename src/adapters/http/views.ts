// Records as the wire shows them: snake_case fields and ISO 8601 UTC timestamps.
import type {
  AdjustmentRecord,
  AnnouncementRecord,
  ApplicationRecord,
  BanRecord,
  DeviceRecord,
  FileRecord,
  LicenseRecord,
  LicenseRedemption,
  ResponseSigningKey,
  UserDetails,
  UserRecord,
  UserVariableRecord,
  VariableRecord,
} from '../../application/records.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../application/ports/webhook-store.js';
import type { LicenseLookup } from '../../application/admin/lookup-license.js';
import type { UserPage } from '../../application/console/users.js';
import type { ApplicationOverview } from '../../application/console/overview.js';
import type { EventRecord } from '../../application/ports/event-store.js';
import type { AppContext } from '../../application/integration/app-context.js';
import type { IssuedLicenseFile } from '../../application/license-files/issue-license-file.js';
import { admissionCaps } from '../../domain/admission.js';
import { publicationDate } from '../../domain/announcements.js';
import { capSources } from '../../domain/caps.js';
import { membershipView, type Membership } from '../../domain/membership.js';
import { membershipState, type UserPlans } from '../../domain/membership-state.js';
import type { Member } from '../../application/member.js';
import type { Plan } from '../../domain/plan.js';
import { toIso } from '../../domain/time.js';
import { isTimedOut } from '../../domain/timeout.js';
import { responseKeyId } from '../../signing/response-signature.js';
import type { Static } from 'typebox';
import type * as Wire from './wire-schemas.js';

type Json<K extends keyof typeof Wire> = Static<(typeof Wire)[K]>;

const isoOrNull = (t: number | null) => (t === null ? null : toIso(t));

/** The membership's time alone, as events show it. */
export function membershipTimeJson(m: Membership, now: number): Json<'MembershipTime'> {
  const v = membershipView(m, now);
  return { is_active: v.is_active, is_lifetime: v.is_lifetime, active_until: isoOrNull(v.active_until) };
}

/** The membership as every answer shows it: grace counts as active (docs/plans.md, "Grace"). */
export function membershipJson(u: Pick<UserRecord, 'membership' | 'entitlements'>, plans: UserPlans, now: number): Json<'Membership'> {
  const m = membershipState(u.membership, u.entitlements, plans, now);
  return {
    is_active: m.isActive,
    is_lifetime: m.isLifetime,
    active_until: isoOrNull(m.activeUntil),
    plan: m.plan,
    entitlements: [...m.entitlements],
    in_grace: m.inGrace,
    grace_ends_at: isoOrNull(m.graceEndsAt),
  };
}

export const userSummaryJson = ({ user, plans }: Member, now: number): Json<'UserSummary'> => ({
  id: user.id,
  username: user.username,
  membership: membershipJson(user, plans, now),
});

/** A user as events show them (docs/events.md): the membership's time, not its plans. */
export const userEventJson = (u: Pick<UserRecord, 'id' | 'username' | 'membership'>, now: number) => ({
  id: u.id,
  username: u.username,
  membership: membershipTimeJson(u.membership, now),
});

/** An offline license file as every issuing endpoint answers it (docs/signing.md, Offline license files). */
export const licenseFileJson = (f: IssuedLicenseFile): Json<'LicenseFile'> => ({ license_file: f.text, expires_at: toIso(f.expiresAt) });

export const leaseJson = (l: { leaseExpiresAt: number; serverTime: number }): Json<'Lease'> => ({ lease_expires_at: toIso(l.leaseExpiresAt), server_time: toIso(l.serverTime) });

export const adjustmentJson = (a: AdjustmentRecord): Json<'Adjustment'> => ({
  id: a.id,
  type: a.type,
  occurred_at: toIso(a.occurredAt),
  minutes: a.minutes,
  grants_lifetime_access: a.grantsLifetime,
  revokes_lifetime_access: a.revokesLifetime,
  license_id: a.licenseId,
  reason: a.reason,
  // Events stored before plans have no plan fields: they kept their plan (docs/events.md).
  plan_from: a.planFrom ?? null,
  plan_to: a.planTo ?? null,
});

/** A device as the owner sees it; registered_at is also its first_seen_at. */
export const deviceJson = (dev: DeviceRecord): Json<'Device'> => ({
  id: dev.id,
  hardware_id: dev.hardwareId,
  registered_at: toIso(dev.registeredAt),
  name: dev.name,
  platform: dev.platform,
  app_version: dev.appVersion,
  first_seen_at: toIso(dev.registeredAt),
  last_seen_at: toIso(dev.lastSeenAt),
  last_ip: dev.lastIp,
});

/** A device as its user sees it: no hardware id nor address; `current` marks the caller's machine. */
export const ownDeviceJson = ({ device, current }: { device: DeviceRecord; current: boolean }): Json<'OwnDevice'> => ({
  id: device.id,
  name: device.name,
  platform: device.platform,
  app_version: device.appVersion,
  first_seen_at: toIso(device.registeredAt),
  last_seen_at: toIso(device.lastSeenAt),
  current,
});

/** The User object (docs/api.md, API reference; admin view), with a few extra fields an owner needs. */
export function userAdminJson(d: UserDetails, now: number): Json<'AdminUser'> {
  const u = d.user;
  const caps = admissionCaps(u, d.plans.base, d.capDefaults);
  return {
    application_id: u.applicationId,
    id: u.id,
    credential_type: u.credentialType,
    username: u.username,
    // The caps in force, whatever gives them, and where from (docs/plans.md, "Caps").
    allowed_number_of_devices: caps.devices,
    allowed_number_of_simultaneous_sessions: caps.sessions,
    caps_source: capSources({ user: u, basePlan: d.plans.base }),
    registered_devices: d.devices.map(deviceJson),
    membership: {
      application_id: u.applicationId,
      user_id: u.id,
      ...membershipJson(u, d.plans, now),
      adjustments: d.adjustments.map(adjustmentJson),
    },
    timed_out_until: isTimedOut(u.timeout, now) ? toIso(u.timeout.until) : null,
    timeout_reason: isTimedOut(u.timeout, now) ? u.timeout.reason : null,
    last_ip: u.lastIp,
    created_at: toIso(u.createdAt),
  };
}

const keyIdOf = (key: ResponseSigningKey | null) => (key === null ? null : responseKeyId(key.publicKey));

/** The current response signing key, as clients pin it (null only until an old application is given one). */
export const responseSigningKeyJson = (a: ApplicationRecord): Json<'ResponseSigningKey'> => ({
  response_signing_public_key: a.signing.response?.publicKey ?? null,
  response_signing_key_id: keyIdOf(a.signing.response),
});

/** The application's name and settings, as the Application object begins (events show it so, without keys). */
export const applicationSettingsJson = (a: Pick<ApplicationRecord, 'id' | 'name' | 'settings'>) => ({
  id: a.id,
  name: a.name,
  anonymous_access: a.settings.anonymousAccess,
  device_auth: a.settings.deviceAuth,
  legacy_auth: a.settings.legacyAuth,
  token_auth: a.settings.tokenAuth,
  session_ttl_seconds: a.settings.sessionTtlSeconds,
  default_allowed_devices: a.settings.defaultAllowedDevices,
  default_allowed_sessions: a.settings.defaultAllowedSessions,
  ban_propagation: a.settings.banPropagation,
  ban_propagation_to_addresses: a.settings.banPropagationToAddresses,
  propagated_ip_ban_hours: a.settings.propagatedIpBanHours,
  password_min_length: a.settings.passwordMinLength,
  response_signing: a.settings.responseSigning,
  request_signing: a.settings.requestSigning,
  signature_window_seconds: a.settings.signatureWindowSeconds,
  license_file_ttl_minutes: a.settings.licenseFileTtlMinutes,
  max_user_variables: a.settings.maxUserVariables,
  device_reset_cooldown_hours: a.settings.deviceResetCooldownHours,
  sign_ups_per_hour: a.settings.signUpsPerHour,
  expiry_notice_days: a.settings.expiryNoticeDays,
  trial_plan_id: a.settings.trialPlanId,
  heartbeat_seconds: a.settings.heartbeatSeconds,
  refresh_ttl_days: a.settings.refreshTtlDays,
});

export const applicationJson = (a: ApplicationRecord): Json<'Application'> => ({
  ...applicationSettingsJson(a),
  ...responseSigningKeyJson(a),
  response_signing_previous_key_id: keyIdOf(a.signing.previousResponse),
  api_key: a.apiKey,
  created_at: toIso(a.createdAt),
});

/** A license without its code, as events show it (docs/events.md): the console lists codes, events need not. */
export const licenseWithoutCode = (
  l: Pick<LicenseRecord, 'id' | 'minutes' | 'note' | 'createdAt' | 'usedAt' | 'usedByUserId' | 'banned' | 'planId' | 'seats' | 'redemptions'>,
): Omit<Json<'License'>, 'code'> => ({
  id: l.id,
  minutes: l.minutes,
  note: l.note,
  created_at: toIso(l.createdAt),
  used_at: isoOrNull(l.usedAt),
  used_by_user_id: l.usedByUserId,
  banned: l.banned,
  // Events stored before plans lack these: a minutes license, one seat, used once or not (docs/events.md).
  plan_id: l.planId ?? null,
  seats: l.seats ?? 1,
  redemptions: l.redemptions ?? (l.usedAt === null ? 0 : 1),
});

/** Who redeemed a plan's code (docs/api.md, Licenses): username null once the user is deleted. */
export const licenseRedemptionJson = (r: LicenseRedemption): Json<'LicenseRedemption'> => ({ user_id: r.userId, username: r.username, redeemed_at: toIso(r.redeemedAt) });

export const licenseJson = (l: LicenseRecord, code: string): Json<'License'> => ({ ...licenseWithoutCode(l), code });

export const userVariableJson = (v: UserVariableRecord): Json<'UserVariable'> => ({ name: v.name, value: v.value, updated_at: toIso(v.updatedAt) });

/** The console's User object: the admin one with the user's variables and device resets (docs/api.md, User variables). */
export const userPageJson = (p: UserPage, now: number): Json<'UserPage'> => ({
  ...userAdminJson(p.details, now),
  variables: p.variables.map(userVariableJson),
  direct_entitlements: p.details.user.entitlements,
  last_device_reset_at: isoOrNull(p.details.user.lastDeviceResetAt),
  next_device_reset_at: isoOrNull(p.nextDeviceResetAt),
});

/** GET /api/admin/license/{code} (docs/api.md, GET /license/{code}). */
export const licenseLookupJson = (l: LicenseLookup): Json<'LicenseLookup'> => ({
  application_id: l.license.applicationId,
  ...licenseJson(l.license, l.code),
  is_credentials_license: l.isCredentialsLicense,
});

/** An audit log entry: the fields its hash covers (application/events/chain-entry.ts) and the hash. */
export const auditEntryJson = (e: EventRecord): Json<'AuditEntry'> => ({
  id: e.id,
  application_id: e.applicationId,
  occurred_at: toIso(e.occurredAt),
  action: e.action,
  actor: e.actor,
  target: e.target,
  changes: e.changes,
  outcome: e.outcome,
  data: e.data,
  seq: e.seq,
  hash: e.hash,
});

export const variableJson = (v: VariableRecord): Json<'Variable'> => ({ name: v.name, value: v.value, is_public: v.isPublic });

export const announcementJson = (a: AnnouncementRecord): Json<'Announcement'> => ({
  id: a.id,
  title: a.title,
  content_html: a.contentHtml,
  publish_from: toIso(a.publishFrom),
  publish_until: isoOrNull(a.publishUntil),
  status: a.status,
  publication_date: publicationDate(a),
});

/** A ban as shown: license bans name the code, not the internal license id. */
export const banJson = (b: BanRecord, shownValue: string = b.value): Json<'Ban'> => ({
  id: b.id,
  type: b.type,
  value: shownValue,
  reason: b.reason,
  created_at: toIso(b.createdAt),
  propagated_from: b.propagatedFrom,
  expires_at: isoOrNull(b.expiresAt),
});

const variableItemJson = (v: VariableRecord): Json<'AppContext'>['application']['variables'][number] => ({ name: v.name, value: v.value });
const fileItemJson = (f: FileRecord): Json<'AppContext'>['application']['files'][number] => ({
  id: f.id,
  name: f.name,
  mime_type: f.mimeType,
  is_encrypted: f.state.stored?.encrypted ?? false,
});

// app_context's content, serialised once: the visible sets are the same arrays while the cached
// content stands (application/integration/app-context.ts), and an announcement record the same
// object; only which announcements are live, the user and the time are new per request.
const serialised = new WeakMap<object, string>();
const serialisedOnce = (of: object, view: () => unknown): string => {
  let text = serialised.get(of);
  if (text === undefined) serialised.set(of, (text = JSON.stringify(view())));
  return text;
};

const isoText = (t: number | null) => (t === null ? 'null' : JSON.stringify(toIso(t)));

/** The user as userSummaryJson shows them, as JSON text: the base plan and its entitlements, when
 * they are the plan's own list, are the content's objects, so their text is made once. */
function userSummaryText({ user, plans }: Member, now: number): string {
  const m = membershipState(user.membership, user.entitlements, plans, now);
  const base = plans.base;
  const plan = base === null ? 'null' : serialisedOnce(base, () => ({ id: base.id, name: base.name }));
  const codes = base !== null && m.entitlements === base.entitlements ? serialisedOnce(base.entitlements, () => base.entitlements) : JSON.stringify(m.entitlements);
  return (
    `{"id":${JSON.stringify(user.id)},"username":${JSON.stringify(user.username)},"membership":{"is_active":${m.isActive},"is_lifetime":${m.isLifetime},` +
    `"active_until":${isoText(m.activeUntil)},"plan":${plan},"entitlements":${codes},"in_grace":${m.inGrace},"grace_ends_at":${isoText(m.graceEndsAt)}}}`
  );
}

/** The app_context answer as JSON text, in the AppContext schema's field order (answer-check.ts). */
export function appContextBody(c: AppContext): string {
  const user = c.user === null ? 'null' : userSummaryText(c.user, c.serverTime);
  return (
    `{"application":{"id":${JSON.stringify(c.app.id)},"name":${JSON.stringify(c.app.name)},` +
    `"variables":${serialisedOnce(c.variables, () => c.variables.map(variableItemJson))},` +
    `"files":${serialisedOnce(c.files, () => c.files.map(fileItemJson))}},` +
    `"announcements":[${c.announcements.map((a) => serialisedOnce(a, () => announcementJson(a))).join(',')}],` +
    `"user":${user},"server_time":${JSON.stringify(toIso(c.serverTime))}}`
  );
}

export const overviewJson = (o: ApplicationOverview): Json<'Overview'> => ({
  users: o.users,
  active_memberships: o.activeMemberships,
  licenses: { used: o.licensesUsed, unused: o.licensesUnused },
  storage_bytes: o.storageBytes,
  daily: o.daily.map((d) => ({ date: d.date, sign_ups: d.signUps, logins: d.logins })),
});

export const planJson = (p: Plan): Json<'Plan'> => ({
  id: p.id,
  name: p.name,
  kind: p.kind,
  duration_minutes: p.durationMinutes,
  entitlements: p.entitlements,
  max_devices: p.maxDevices,
  max_sessions: p.maxSessions,
  seats: p.seats,
  grace_minutes: p.graceMinutes,
  trial: p.trial,
  floating: p.floating,
  max_borrow_minutes: p.maxBorrowMinutes,
  archived: p.archived,
  created_at: toIso(p.createdAt),
  updated_at: toIso(p.updatedAt),
});

export const webhookEndpointJson = (
  e: Pick<WebhookEndpointRecord, 'id' | 'url' | 'events' | 'description' | 'enabled' | 'failingSince' | 'disabledReason' | 'createdAt' | 'updatedAt'>,
): Json<'WebhookEndpoint'> => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  enabled: e.enabled,
  failing_since: isoOrNull(e.failingSince),
  disabled_reason: e.disabledReason,
  created_at: toIso(e.createdAt),
  updated_at: toIso(e.updatedAt),
});

export const webhookDeliveryJson = (d: WebhookDeliveryRecord): Json<'WebhookDelivery'> => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_id: d.eventId,
  event_type: d.eventType,
  state: d.state,
  attempts: d.attempts.map((a) => ({
    attempted_at: toIso(a.attemptedAt),
    status_code: a.statusCode,
    latency_ms: a.latencyMs,
    error: a.error,
    response_body: a.responseBody,
  })),
  next_attempt_at: d.state === 'pending' ? toIso(d.runAfter) : null,
  created_at: toIso(d.createdAt),
});
