// Renders a stored event's facts into the `data` and `changes` webhooks and the audit log show,
// by the API's own views (docs/events.md). Deterministic: an instant a view needs is one the facts
// kept, never the time of rendering, since the chain's hash covers it (docs/choices.md).
import type { AnnouncementChangedFacts, SettingsChangedFacts, UserVariableChangedFacts, VariableChangedFacts, WebhookChangedFacts } from '../../application/events/content-facts.js';
import type {
  DeviceFactsOf,
  LicenseActivatedFacts,
  LicenseFacts,
  LicenseFileIssuedFacts,
  MembershipAdjustedFacts,
  MembershipExpiredFacts,
  MembershipExpiringFacts,
  MembershipPlanChangedFacts,
  TrialStartedFacts,
  SessionCreatedFacts,
  TimedOutFacts,
  TimeoutLiftedFacts,
  UserCreatedFacts,
} from '../../application/events/event-facts.js';
import type { SeatBorrowFacts } from '../../application/events/seat-facts.js';
import type { RenderedEvent, RenderEvent, StoredEvent } from '../../application/ports/event-renderer.js';
import type { AnnouncementRecord, BanRecord, FileRecord } from '../../application/records.js';
import { daysRemaining } from '../../domain/membership-notices.js';
import { toIso } from '../../domain/time.js';
import { fileJson } from '../http/files/file-views.js';
import { adjustmentJson, announcementJson, applicationSettingsJson, banJson, licenseWithoutCode, userEventJson, webhookEndpointJson } from '../http/views.js';

type Data = Record<string, unknown>;
type Changes = Record<string, [unknown, unknown]>;
/** One action's rendering: its data, and its changes where the facts hold them (else the stored ones). */
type Renderer = (facts: never) => { data: Data; changes?: Changes };

const isoOrNull = (t: number | null) => (t === null ? null : toIso(t));
const deviceJson = (d: DeviceFactsOf['device']) => ({ id: d.id, hardware_id: d.hardwareId, registered_at: toIso(d.registeredAt) });

/** `{field: [before, after]}` of the fields that differ (a missing side is null). */
function diff(before: Data | null, after: Data | null): Changes {
  const out: Changes = {};
  for (const key of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const b = before?.[key] ?? null;
    const a = after?.[key] ?? null;
    if (JSON.stringify(b) !== JSON.stringify(a)) out[key] = [b, a];
  }
  return out;
}

const applicationData = (a: SettingsChangedFacts['after']) => ({ ...applicationSettingsJson(a), created_at: toIso(a.createdAt) });
const seatBorrowJson = (f: SeatBorrowFacts) => ({ user_id: f.userId, license_id: f.licenseId, hardware_id: f.hardwareId, borrowed_until: toIso(f.borrowedUntil) });
const announcementData = (a: AnnouncementRecord | null) => (a === null ? null : announcementJson(a));

/** The actions whose facts differ from their data; any other action's facts are its data. */
const renderers: Record<string, Renderer> = {
  'user.created': (f: UserCreatedFacts) => ({ data: { user: userEventJson(f.user, f.at), source: f.source } }),
  'session.created': (f: SessionCreatedFacts) => ({ data: { user_id: f.userId, session: { id: f.session.id, hardware_id: f.session.hardwareId, expires_at: toIso(f.session.expiresAt) } } }),
  'license.activated': (f: LicenseActivatedFacts) => ({ data: { license: licenseWithoutCode(f.license), user: userEventJson(f.user, f.at), adjustment: adjustmentJson(f.adjustment) } }),
  'license.deleted': (f: { license: LicenseFacts }) => ({ data: { license: licenseWithoutCode(f.license) } }),
  'membership.adjusted': (f: MembershipAdjustedFacts) => ({ data: { user: userEventJson(f.user, f.at), adjustment: adjustmentJson(f.adjustment) } }),
  'membership.plan_changed': (f: MembershipPlanChangedFacts) => ({
    data: { user: userEventJson(f.user, f.at), plan_from: f.planFrom, plan_to: f.planTo, adjustment: adjustmentJson(f.adjustment) },
  }),
  'membership.expiring': (f: MembershipExpiringFacts) => ({
    data: { user: userEventJson(f.user, f.at), active_until: toIso(f.activeUntil), days_remaining: daysRemaining(f.activeUntil, f.at), notice_days: f.noticeDays },
  }),
  'trial.started': (f: TrialStartedFacts) => ({ data: { user: userEventJson(f.user, f.at), plan: f.plan, adjustment: adjustmentJson(f.adjustment) } }),
  'membership.expired': (f: MembershipExpiredFacts) => ({ data: { user: userEventJson(f.user, f.at), active_until: toIso(f.activeUntil), access_ended_at: toIso(f.accessEndedAt) } }),
  'seat.borrowed': (f: SeatBorrowFacts) => ({ data: seatBorrowJson(f) }),
  'seat.returned': (f: SeatBorrowFacts) => ({ data: seatBorrowJson(f) }),
  'ban.created': (f: { ban: BanRecord }) => ({ data: { ban: banJson(f.ban), propagated_from: f.ban.propagatedFrom } }),
  'ban.removed': (f: { ban: BanRecord }) => ({ data: { ban: banJson(f.ban) } }),
  'user.timed_out': (f: TimedOutFacts) => ({
    data: { user_id: f.userId, timed_out_until: toIso(f.until), reason: f.reason },
    changes: { timed_out_until: [isoOrNull(f.before), toIso(f.until)] },
  }),
  'user.timeout_lifted': (f: TimeoutLiftedFacts) => ({ data: { user_id: f.userId }, changes: { timed_out_until: [isoOrNull(f.before), null] } }),
  'device.registered': (f: DeviceFactsOf) => ({ data: { user_id: f.userId, device: deviceJson(f.device) } }),
  'device.removed': (f: DeviceFactsOf) => ({ data: { user_id: f.userId, device: deviceJson(f.device), reason: f.reason } }),
  'license_file.issued': ({ userId, licenseFile: l }: LicenseFileIssuedFacts) => ({
    data: { user_id: userId, license_file: { id: l.id, hardware_id: l.hardwareId, issued_at: toIso(l.issuedAt), expires_at: toIso(l.expiresAt), issued_by: l.issuedBy } },
  }),
  'file.completed': (f: { file: FileRecord }) => ({ data: { file: fileJson(f.file) } }),
  'file.failed': (f: { file: FileRecord }) => ({ data: { file: fileJson(f.file) } }),
  'file.deleted': (f: { file: FileRecord }) => ({ data: { file: fileJson(f.file) } }),
  // A variable's view with the value's digest in place of the value.
  'variable.changed': (f: VariableChangedFacts | UserVariableChangedFacts) => {
    if (f.scope === 'user') {
      const v = f.variable;
      return { data: { scope: 'user', user_id: f.userId, variable: v === null ? null : { name: v.name, value: v.value, updated_at: toIso(v.updatedAt) }, deleted: v === null } };
    }
    const v = f.variable;
    return { data: { scope: 'application', variable: v === null ? null : { name: v.name, value: v.value, is_public: v.isPublic }, deleted: v === null } };
  },
  'announcement.changed': (f: AnnouncementChangedFacts) => {
    const [b, a] = [announcementData(f.before), announcementData(f.after)];
    return { data: { change: f.change, announcement: a ?? b }, changes: diff(b, a) };
  },
  'application.settings_changed': (f: SettingsChangedFacts) => ({ data: { application: applicationData(f.after) }, changes: diff(applicationData(f.before), applicationData(f.after)) }),
  'webhook.created': (f: WebhookChangedFacts) => webhookData(f),
  'webhook.updated': (f: WebhookChangedFacts) => webhookData(f),
  'webhook.deleted': (f: WebhookChangedFacts) => webhookData(f),
  'webhook.secret_rotated': (f: WebhookChangedFacts) => webhookData(f),
};

/** The fields of an endpoint an update may change. */
const editable = ({ url, events, description, enabled }: ReturnType<typeof webhookEndpointJson>) => ({ url, events, description, enabled });

/** The endpoint as the console shows it; an update's changes name the fields it changed. */
function webhookData(f: WebhookChangedFacts): { data: Data; changes?: Changes } {
  const now = webhookEndpointJson(f.webhook);
  if (f.before === undefined) return { data: { webhook: now } };
  return { data: { webhook: now }, changes: diff(editable(webhookEndpointJson(f.before)), editable(now)) };
}

/** The wire `data` and `changes` of a stored event; a row stored rendered (before facts) is shown as stored. */
export const renderEvent: RenderEvent = (e: StoredEvent): RenderedEvent => {
  const render = e.dataForm === 'facts' ? renderers[e.action] : undefined;
  if (render === undefined) return { data: e.data, changes: e.changes };
  const shown = render(e.data as never);
  return { data: shown.data, changes: shown.changes ?? e.changes };
};
