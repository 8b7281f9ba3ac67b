// The events a change records (docs/events.md, Events): each builder takes the records the change
// made and returns the event's draft, its `data` built by the views the API answers with, so an
// event shows a user, a license or a ban exactly as the API does, minus its secrets (no password
// hash, key, token or whole license code is ever passed to a view here).
import { createHash } from 'node:crypto';
import type { EventDraft } from '../../application/events/event-draft.js';
import type {
  AdjustmentRecord,
  AnnouncementRecord,
  ApplicationRecord,
  BanRecord,
  DeviceRecord,
  FileRecord,
  LicenseRecord,
  UserRecord,
  UserVariableRecord,
  VariableRecord,
} from '../../application/records.js';
import { toIso } from '../../domain/time.js';
import { fileJson } from '../http/files/file-views.js';
import { adjustmentJson, announcementJson, applicationJson, banJson, licenseWithoutCode, userSummaryJson, userVariableJson, variableJson, webhookEndpointJson } from '../http/views.js';
import type { WebhookEndpointRecord } from '../../application/ports/webhook-store.js';

const userTarget = (u: Pick<UserRecord, 'id' | 'username'>) => ({ type: 'user', id: u.id, label: u.username });
const isoOrNull = (t: number | null) => (t === null ? null : toIso(t));

const deviceData = (d: DeviceRecord) => ({ id: d.id, hardware_id: d.hardwareId, registered_at: toIso(d.registeredAt) });

/** `user.created`: by a sign-up (`sign_up`) or a sign-up with a license code. */
export const userCreated = (u: UserRecord, source: 'sign_up' | 'sign_up_with_license_code', now: number): EventDraft => ({
  applicationId: u.applicationId,
  action: 'user.created',
  target: userTarget(u),
  data: { user: userSummaryJson(u, now), source },
});

export const sessionCreated = (u: UserRecord, session: { id: string; hardwareId: string | null; expiresAt: number }): EventDraft => ({
  applicationId: u.applicationId,
  action: 'session.created',
  target: userTarget(u),
  data: { user_id: u.id, session: { id: session.id, hardware_id: session.hardwareId, expires_at: toIso(session.expiresAt) } },
});

/** `session.revoked`: why (`logout`, `owner`, `timeout`, `ban`, `password_changed`, `devices_reset`) and how many. */
export const sessionsRevoked = (applicationId: string, user: { id: string; label: string | null }, reason: string, count: number): EventDraft => ({
  applicationId,
  action: 'session.revoked',
  target: { type: 'user', id: user.id, label: user.label },
  data: { user_id: user.id, reason, revoked: count },
});

/** `license.created`: one per batch, with the batch's count and terms (never the codes). */
export const licensesCreated = (batch: readonly LicenseRecord[]): EventDraft => {
  const first = batch[0]!;
  return {
    applicationId: first.applicationId,
    action: 'license.created',
    target: { type: 'license_batch', id: first.id, label: `${batch.length} license${batch.length === 1 ? '' : 's'}` },
    data: { count: batch.length, minutes: first.minutes, note: first.note, license_ids: batch.slice(0, 100).map((l) => l.id) },
  };
};

export const licenseActivated = (l: LicenseRecord, u: UserRecord, adjustment: AdjustmentRecord, now: number): EventDraft => ({
  applicationId: l.applicationId,
  action: 'license.activated',
  target: { type: 'license', id: l.id, label: null },
  data: { license: licenseWithoutCode({ ...l, usedAt: now, usedByUserId: u.id }), user: userSummaryJson(u, now), adjustment: adjustmentJson(adjustment) },
});

export const licenseDeleted = (l: LicenseRecord): EventDraft => ({
  applicationId: l.applicationId,
  action: 'license.deleted',
  target: { type: 'license', id: l.id, label: null },
  data: { license: licenseWithoutCode(l) },
});

export const membershipAdjusted = (u: UserRecord, adjustment: AdjustmentRecord, now: number): EventDraft => ({
  applicationId: u.applicationId,
  action: 'membership.adjusted',
  target: userTarget(u),
  data: { user: userSummaryJson(u, now), adjustment: adjustmentJson(adjustment) },
});

export const banCreated = (b: BanRecord): EventDraft => ({
  applicationId: b.applicationId,
  action: 'ban.created',
  target: { type: 'ban', id: b.id, label: `${b.type}:${b.value}` },
  data: { ban: banJson(b), propagated_from: b.propagatedFrom },
});

export const banRemoved = (b: BanRecord): EventDraft => ({
  applicationId: b.applicationId,
  action: 'ban.removed',
  target: { type: 'ban', id: b.id, label: `${b.type}:${b.value}` },
  data: { ban: banJson(b) },
});

export const userTimedOut = (u: UserRecord, until: number, reason: string | null): EventDraft => ({
  applicationId: u.applicationId,
  action: 'user.timed_out',
  target: userTarget(u),
  data: { user_id: u.id, timed_out_until: toIso(until), reason },
  changes: { timed_out_until: [isoOrNull(u.timeout?.until ?? null), toIso(until)] },
});

export const userTimeoutLifted = (u: UserRecord): EventDraft => ({
  applicationId: u.applicationId,
  action: 'user.timeout_lifted',
  target: userTarget(u),
  data: { user_id: u.id },
  changes: { timed_out_until: [isoOrNull(u.timeout?.until ?? null), null] },
});

export const deviceRegistered = (applicationId: string, user: Pick<UserRecord, 'id' | 'username'>, device: DeviceRecord): EventDraft => ({
  applicationId,
  action: 'device.registered',
  target: userTarget(user),
  data: { user_id: user.id, device: deviceData(device) },
});

/** An offline license file was issued (audit-only): its id, machine, expiry and issuer, never its text. */
export const licenseFileIssued = (
  applicationId: string,
  user: Pick<UserRecord, 'id' | 'username'>,
  f: { id: string; hardwareId: string | null; issuedAt: number; expiresAt: number; issuedBy: { type: string; id: string } },
): EventDraft => ({
  applicationId,
  action: 'license_file.issued',
  target: userTarget(user),
  data: {
    user_id: user.id,
    license_file: { id: f.id, hardware_id: f.hardwareId, issued_at: toIso(f.issuedAt), expires_at: toIso(f.expiresAt), issued_by: { type: f.issuedBy.type, id: f.issuedBy.id } },
  },
});

export const deviceRemoved = (applicationId: string, user: Pick<UserRecord, 'id' | 'username'>, device: DeviceRecord, reason: 'owner' | 'reset'): EventDraft => ({
  applicationId,
  action: 'device.removed',
  target: userTarget(user),
  data: { user_id: user.id, device: deviceData(device), reason },
});

export const fileEvent = (action: 'file.completed' | 'file.failed' | 'file.deleted', f: FileRecord): EventDraft => ({
  applicationId: f.applicationId,
  action,
  target: { type: 'file', id: f.id, label: f.name },
  data: { file: fileJson(f) },
});

/**
 * A variable's value as events carry it: its UTF-8 length and SHA-256, never the value, so an
 * entry stays small however large the value (docs/events.md, variable.changed).
 */
export const valueDigest = (value: string | null | undefined): { length: number; sha256: string } | null =>
  value === null || value === undefined ? null : { length: Buffer.byteLength(value, 'utf8'), sha256: createHash('sha256').update(value, 'utf8').digest('hex') };

export const variableChanged = (applicationId: string, name: string, before: VariableRecord | null, after: VariableRecord | null): EventDraft => ({
  applicationId,
  action: 'variable.changed',
  target: { type: 'variable', id: name, label: name },
  data: { scope: 'application', variable: after === null ? null : { ...variableJson(after), value: valueDigest(after.value) }, deleted: after === null },
  changes: { value: [valueDigest(before?.value), valueDigest(after?.value)], is_public: [before?.isPublic ?? null, after?.isPublic ?? null] },
});

export const userVariableChanged = (
  user: { applicationId: string; id: string; username: string | null },
  name: string,
  before: UserVariableRecord | null,
  after: UserVariableRecord | null,
): EventDraft => ({
  applicationId: user.applicationId,
  action: 'variable.changed',
  target: { type: 'user_variable', id: `${user.id}/${name}`, label: name },
  data: { scope: 'user', user_id: user.id, variable: after === null ? null : { ...userVariableJson(after), value: valueDigest(after.value) }, deleted: after === null },
  changes: { value: [valueDigest(before?.value), valueDigest(after?.value)] },
});

export const announcementChanged = (applicationId: string, id: string, change: 'created' | 'updated' | 'deleted', before: AnnouncementRecord | null, after: AnnouncementRecord | null): EventDraft => {
  const b = before === null ? null : announcementJson(before);
  const a = after === null ? null : announcementJson(after);
  return {
    applicationId,
    action: 'announcement.changed',
    target: { type: 'announcement', id, label: (after ?? before)?.title ?? null },
    data: { change, announcement: a ?? b },
    changes: diff(b, a),
  };
};

/** The application as events show it: its settings and name, without the API key or signing keys. */
function applicationData(a: ApplicationRecord) {
  const { api_key: _apiKey, response_signing_public_key: _pub, response_signing_key_id: _kid, response_signing_previous_key_id: _prev, ...rest } = applicationJson(a);
  return rest;
}

/** `{field: [before, after]}` of the fields that differ (a missing side is null). */
function diff(before: Record<string, unknown> | null, after: Record<string, unknown> | null): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const key of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const b = before?.[key] ?? null;
    const a = after?.[key] ?? null;
    if (JSON.stringify(b) !== JSON.stringify(a)) out[key] = [b, a];
  }
  return out;
}

export const applicationSettingsChanged = (before: ApplicationRecord, after: ApplicationRecord): EventDraft => ({
  applicationId: after.id,
  action: 'application.settings_changed',
  target: { type: 'application', id: after.id, label: after.name },
  data: { application: applicationData(after) },
  changes: diff(applicationData(before), applicationData(after)),
});

/** Which credential was rotated; the values never appear (their field shows null on both sides). */
export const credentialsRotated = (a: ApplicationRecord, credential: string, extra: Record<string, unknown> = {}): EventDraft => ({
  applicationId: a.id,
  action: 'application.credentials_rotated',
  target: { type: 'application', id: a.id, label: a.name },
  data: { credential, ...extra },
  changes: { [credential]: [null, null] },
});

/**
 * Audit-only (no webhook subscribes to them): an owner made, changed, rotated the secret of, or
 * removed a webhook endpoint. The endpoint as the console shows it, never its secret; an update
 * carries the fields it changed.
 */
export function webhookEndpointChanged(
  action: 'webhook.created' | 'webhook.updated' | 'webhook.deleted' | 'webhook.secret_rotated',
  endpoint: WebhookEndpointRecord,
  before?: WebhookEndpointRecord,
): EventDraft {
  const now = webhookEndpointJson(endpoint);
  const changes: Record<string, [unknown, unknown]> = {};
  if (before !== undefined) {
    const was = webhookEndpointJson(before);
    for (const field of ['url', 'events', 'description', 'enabled'] as const) {
      if (JSON.stringify(was[field]) !== JSON.stringify(now[field])) changes[field] = [was[field], now[field]];
    }
  }
  return {
    applicationId: endpoint.applicationId,
    action,
    target: { type: 'webhook', id: endpoint.id, label: endpoint.url },
    data: { webhook: now },
    ...(before === undefined ? {} : { changes }),
  };
}
