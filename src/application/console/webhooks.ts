// Webhook endpoints in the console (docs/api.md, Webhooks). The signing secret is shown once, at
// creation and at rotation, and kept sealed under the master key; URLs pass the server-side
// request forgery rule (WebhookSender.checkUrl) on every write.
import { DomainError, validationError } from '../../domain/errors.js';
import { PREVIOUS_SECRET_MS, WEBHOOK_SECRET_BYTES, webhookSecretOf } from '../../domain/webhook-secret.js';
import type { Deps } from '../deps.js';
import { isWebhookEvent, type EventDraft } from '../events/event-draft.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { WebhookDeliveryRecord, WebhookEndpointChange, WebhookEndpointRecord, WebhookStore } from '../ports/webhook-store.js';
import type { OwnerRecord } from '../records.js';
import { ownedApplication } from './applications.js';
import type { Actor } from '../events/actor.js';

/** Deliveries a listing shows: the newest this many. */
export const DELIVERIES_LISTED = 100;

type ConsoleDeps = { store: ApplicationStore & WebhookStore };
type WriteDeps = Pick<Deps, 'clock' | 'webhooks'> & ConsoleDeps;

const notFound = () => new DomainError('WEBHOOK_NOT_FOUND', 'no such webhook endpoint');

/** ["*"], or distinct names of WEBHOOK_EVENTS. */
function validEvents(events: readonly string[]): string[] {
  if (events.length === 0) throw validationError('events', 'must name at least one event, or "*"');
  if (events.includes('*')) {
    if (events.length > 1) throw validationError('events', '"*" stands alone');
    return ['*'];
  }
  const unknown = events.filter((name) => !isWebhookEvent(name));
  if (unknown.length > 0) throw validationError('events', `unknown event ${JSON.stringify(unknown[0])}`);
  return [...new Set(events)];
}

async function ownedEndpoint(deps: ConsoleDeps, owner: OwnerRecord, appId: string, endpointId: string): Promise<WebhookEndpointRecord> {
  const app = await ownedApplication(deps, owner, appId);
  const endpoint = await deps.store.findWebhookEndpoint(app.id, endpointId);
  if (endpoint === null) throw notFound();
  return endpoint;
}

/** A new secret, and its seal for the store. */
function newSecret(deps: Pick<Deps, 'secrets'>): { secret: string; sealed: string } {
  const secret = webhookSecretOf(deps.secrets.randomBytes(WEBHOOK_SECRET_BYTES));
  return { secret, sealed: deps.secrets.seal(secret) };
}

export async function createWebhook(
  deps: WriteDeps & Pick<Deps, 'ids' | 'secrets'>,
  owner: OwnerRecord,
  appId: string,
  input: { url: string; events: string[]; description?: string | null },
  actor: Actor,
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const app = await ownedApplication(deps, owner, appId);
  const events = validEvents(input.events);
  await deps.webhooks.checkUrl(input.url);
  const { secret, sealed } = newSecret(deps);
  const now = deps.clock.now();
  const endpoint: WebhookEndpointRecord = {
    id: deps.ids.uuid(),
    applicationId: app.id,
    url: input.url,
    events,
    description: input.description ?? null,
    enabled: true,
    secretSealed: sealed,
    previousSecretSealed: null,
    previousSecretUntil: null,
    failingSince: null,
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.insertWebhookEndpoint(endpoint, actor);
  return { endpoint, secret };
}

export async function listWebhooks(deps: ConsoleDeps, owner: OwnerRecord, appId: string): Promise<WebhookEndpointRecord[]> {
  const app = await ownedApplication(deps, owner, appId);
  return deps.store.listWebhookEndpoints(app.id);
}

export async function updateWebhook(
  deps: WriteDeps,
  owner: OwnerRecord,
  appId: string,
  endpointId: string,
  input: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
  actor: Actor,
): Promise<WebhookEndpointRecord> {
  const endpoint = await ownedEndpoint(deps, owner, appId, endpointId);
  const change: WebhookEndpointChange = {};
  if (input.events !== undefined) change.events = validEvents(input.events);
  if (input.url !== undefined) {
    await deps.webhooks.checkUrl(input.url);
    change.url = input.url;
  }
  if (input.description !== undefined) change.description = input.description;
  if (input.enabled !== undefined) {
    change.enabled = input.enabled;
    // Turned back on by the owner: whatever made it fail or be disabled is theirs to have fixed.
    if (input.enabled) Object.assign(change, { disabledReason: null, failingSince: null });
  }
  const updated = await deps.store.updateWebhookEndpoint(endpoint.applicationId, endpoint.id, change, deps.clock.now(), actor);
  if (updated === null) throw notFound();
  return updated;
}

export async function deleteWebhook(deps: ConsoleDeps & Pick<Deps, 'clock'>, owner: OwnerRecord, appId: string, endpointId: string, actor: Actor): Promise<void> {
  const endpoint = await ownedEndpoint(deps, owner, appId, endpointId);
  if (!(await deps.store.deleteWebhookEndpoint(endpoint.applicationId, endpoint.id, deps.clock.now(), actor))) throw notFound();
}

/** A new secret; the one it replaces keeps signing beside it for PREVIOUS_SECRET_MS. */
export async function rotateWebhookSecret(
  deps: Pick<Deps, 'clock' | 'secrets'> & ConsoleDeps,
  owner: OwnerRecord,
  appId: string,
  endpointId: string,
  actor: Actor,
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const endpoint = await ownedEndpoint(deps, owner, appId, endpointId);
  const { secret, sealed } = newSecret(deps);
  const now = deps.clock.now();
  const rotated = await deps.store.rotateWebhookSecret(endpoint.applicationId, endpoint.id, sealed, now + PREVIOUS_SECRET_MS, now, actor);
  if (rotated === null) throw notFound();
  return { endpoint: rotated, secret };
}

/** `webhook.test`, delivered to this endpoint only (store/webhook-fan-out.ts). */
export const webhookTested = (endpoint: WebhookEndpointRecord): EventDraft => ({
  applicationId: endpoint.applicationId,
  action: 'webhook.test',
  target: { type: 'webhook_endpoint', id: endpoint.id, label: endpoint.url },
  data: { endpoint_id: endpoint.id, message: 'A test event sent from the console.' },
});

export async function testWebhook(deps: Pick<Deps, 'clock'> & ConsoleDeps, owner: OwnerRecord, appId: string, endpointId: string, actor: Actor): Promise<void> {
  const endpoint = await ownedEndpoint(deps, owner, appId, endpointId);
  await deps.store.recordWebhookTest(webhookTested(endpoint), deps.clock.now(), actor);
}

export async function listWebhookDeliveries(deps: ConsoleDeps, owner: OwnerRecord, appId: string, endpointId: string): Promise<WebhookDeliveryRecord[]> {
  const endpoint = await ownedEndpoint(deps, owner, appId, endpointId);
  return deps.store.listWebhookDeliveries(endpoint.applicationId, endpoint.id, DELIVERIES_LISTED);
}

/** Another attempt soon, with the same event (the same webhook-id). */
export async function redeliverWebhook(deps: Pick<Deps, 'clock'> & ConsoleDeps, owner: OwnerRecord, appId: string, endpointId: string, deliveryId: string): Promise<void> {
  const endpoint = await ownedEndpoint(deps, owner, appId, endpointId);
  if (!(await deps.store.redeliverWebhook(endpoint.applicationId, endpoint.id, deliveryId, deps.clock.now()))) {
    throw new DomainError('WEBHOOK_DELIVERY_NOT_FOUND', 'no such delivery of this endpoint');
  }
}
