// The events changes to an application's content, settings and webhooks record (docs/events.md):
// their facts are the records minus secrets (no variable value, key or webhook secret), in epoch
// ms; the events adapter renders them for the wire (docs/choices.md, "Events are data").
import { createHash } from 'node:crypto';
import type { ApplicationSettings } from '../../domain/application-settings.js';
import type { Instant } from '../../domain/time.js';
import type { WebhookEndpointRecord } from '../ports/webhook-store.js';
import type { AnnouncementRecord, ApplicationRecord, FileRecord, UserVariableRecord, VariableRecord } from '../records.js';
import { type EventDraft, facts } from './event-draft.js';

/** A value as events carry it: its UTF-8 length and SHA-256 (docs/events.md, variable.changed). */
export type ValueDigest = { length: number; sha256: string } | null;

/** A value as events carry it: its UTF-8 length and SHA-256 (docs/events.md, variable.changed). */
export const valueDigest = (value: string | null | undefined): ValueDigest =>
  value === null || value === undefined ? null : { length: Buffer.byteLength(value, 'utf8'), sha256: createHash('sha256').update(value, 'utf8').digest('hex') };

export interface VariableChangedFacts {
  scope: 'application';
  variable: { name: string; value: ValueDigest; isPublic: boolean } | null;
}
export interface UserVariableChangedFacts {
  scope: 'user';
  userId: string;
  variable: { name: string; value: ValueDigest; updatedAt: Instant } | null;
}
export interface AnnouncementChangedFacts {
  change: 'created' | 'updated' | 'deleted';
  before: AnnouncementRecord | null;
  after: AnnouncementRecord | null;
}
/** The application as events show it: its name and settings, never its keys. */
export type ApplicationFacts = Pick<ApplicationRecord, 'id' | 'name' | 'settings' | 'createdAt'>;
export interface SettingsChangedFacts {
  before: ApplicationFacts;
  after: ApplicationFacts;
}
/** A webhook endpoint as the console shows it, never its secrets. */
export type WebhookEndpointFacts = Pick<WebhookEndpointRecord, 'id' | 'url' | 'events' | 'description' | 'enabled' | 'failingSince' | 'disabledReason' | 'createdAt' | 'updatedAt'>;
export interface WebhookChangedFacts {
  webhook: WebhookEndpointFacts;
  /** An update's endpoint before it. */
  before?: WebhookEndpointFacts;
}

const applicationFacts = (a: ApplicationRecord): ApplicationFacts => ({ id: a.id, name: a.name, settings: { ...a.settings } satisfies ApplicationSettings, createdAt: a.createdAt });
const endpointFacts = (e: WebhookEndpointRecord): WebhookEndpointFacts => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  enabled: e.enabled,
  failingSince: e.failingSince,
  disabledReason: e.disabledReason,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

const fileFacts = (f: FileRecord): FileRecord => ({
  id: f.id,
  applicationId: f.applicationId,
  name: f.name,
  isPublic: f.isPublic,
  mimeType: f.mimeType,
  originalFilename: f.originalFilename,
  storeEncrypted: f.storeEncrypted,
  source: f.source,
  state: { processingStatus: f.state.processingStatus, stored: f.state.stored === null ? null : { ...f.state.stored }, pendingJobId: f.state.pendingJobId, processingError: f.state.processingError },
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});
const announcementFacts = (a: AnnouncementRecord | null): AnnouncementRecord | null =>
  a === null
    ? null
    : { id: a.id, applicationId: a.applicationId, title: a.title, contentHtml: a.contentHtml, status: a.status, publishFrom: a.publishFrom, publishUntil: a.publishUntil, createdAt: a.createdAt };

/** `file.completed`, `file.failed`, `file.deleted`: the file record (it holds no secret). */
export const fileEvent = (action: 'file.completed' | 'file.failed' | 'file.deleted', f: FileRecord): EventDraft => ({
  applicationId: f.applicationId,
  action,
  target: { type: 'file', id: f.id, label: f.name },
  data: { file: fileFacts(f) },
});

/** Its `changes` are facts too (digests and flags, no view), stored as delivered. */
export const variableChanged = (applicationId: string, name: string, before: VariableRecord | null, after: VariableRecord | null): EventDraft => ({
  applicationId,
  action: 'variable.changed',
  target: { type: 'variable', id: name, label: name },
  data: facts<VariableChangedFacts>({ scope: 'application', variable: after === null ? null : { name: after.name, value: valueDigest(after.value), isPublic: after.isPublic } }),
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
  data: facts<UserVariableChangedFacts>({ scope: 'user', userId: user.id, variable: after === null ? null : { name: after.name, value: valueDigest(after.value), updatedAt: after.updatedAt } }),
  changes: { value: [valueDigest(before?.value), valueDigest(after?.value)] },
});

/** The renderer derives `changes` from the announcement before and after. */
export const announcementChanged = (
  applicationId: string,
  id: string,
  change: AnnouncementChangedFacts['change'],
  before: AnnouncementRecord | null,
  after: AnnouncementRecord | null,
): EventDraft => ({
  applicationId,
  action: 'announcement.changed',
  target: { type: 'announcement', id, label: (after ?? before)?.title ?? null },
  data: facts<AnnouncementChangedFacts>({ change, before: announcementFacts(before), after: announcementFacts(after) }),
});

/** The renderer derives `changes` (the fields that differ) from the application before and after. */
export const applicationSettingsChanged = (before: ApplicationRecord, after: ApplicationRecord): EventDraft => ({
  applicationId: after.id,
  action: 'application.settings_changed',
  target: { type: 'application', id: after.id, label: after.name },
  data: facts<SettingsChangedFacts>({ before: applicationFacts(before), after: applicationFacts(after) }),
});

/** Which credential was rotated; the values never appear (their field shows null on both sides). Its facts are its data. */
export const credentialsRotated = (a: ApplicationRecord, credential: string, extra: Record<string, unknown> = {}): EventDraft => ({
  applicationId: a.id,
  action: 'application.credentials_rotated',
  target: { type: 'application', id: a.id, label: a.name },
  data: { credential, ...extra },
  changes: { [credential]: [null, null] },
});

/** Audit-only: an owner made, changed, re-keyed or removed a webhook endpoint (without secrets). */
export const webhookEndpointChanged = (
  action: 'webhook.created' | 'webhook.updated' | 'webhook.deleted' | 'webhook.secret_rotated',
  endpoint: WebhookEndpointRecord,
  before?: WebhookEndpointRecord,
): EventDraft => ({
  applicationId: endpoint.applicationId,
  action,
  target: { type: 'webhook', id: endpoint.id, label: endpoint.url },
  data: facts<WebhookChangedFacts>({ webhook: endpointFacts(endpoint), ...(before === undefined ? {} : { before: endpointFacts(before) }) }),
});
