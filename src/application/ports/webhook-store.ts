// Webhook endpoints for the console, and for the delivery workers the fan-out of committed events,
// the claim and the settling of deliveries (docs/api.md, Webhooks). Methods marked ATOMIC are one
// transaction. Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { DeliveryStep } from '../../domain/webhook-retries.js';
import type { EventDraft } from '../events/event-draft.js';
import type { Instant } from '../../domain/time.js';
import type { EventRecord } from './event-store.js';

export interface WebhookEndpointRecord {
  id: string;
  applicationId: string;
  url: string;
  /** Event names, or ["*"]. */
  events: string[];
  description: string | null;
  enabled: boolean;
  /** The signing secret, sealed under the master key (Secrets.seal). */
  secretSealed: string;
  /** The secret before the last rotation, which keeps signing until previousSecretUntil. */
  previousSecretSealed: string | null;
  previousSecretUntil: Instant | null;
  failingSince: Instant | null;
  disabledReason: string | null;
  createdAt: Instant;
  updatedAt: Instant;
}

/** What the console may change on an endpoint; absent fields stay as they are. */
export type WebhookEndpointChange = Partial<Pick<WebhookEndpointRecord, 'url' | 'events' | 'description' | 'enabled' | 'failingSince' | 'disabledReason'>>;

export interface WebhookAttemptRecord {
  attemptedAt: Instant;
  /** Null when no answer came (a timeout, a refused or failed connection). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first 2 KB of the answer. */
  responseBody: string | null;
}

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  state: DeliveryState;
  /** Oldest first. */
  attempts: WebhookAttemptRecord[];
  runAfter: Instant;
  createdAt: Instant;
}

/** A delivery a worker holds: what it needs to sign and send it. */
export interface ClaimedDelivery {
  id: string;
  /** Attempts made before this one. */
  attempts: number;
  endpoint: Pick<WebhookEndpointRecord, 'id' | 'url' | 'enabled' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretUntil'>;
  /** Its data as stored: the deliverer renders it (ports/event-renderer.ts). */
  event: { id: string; type: string; applicationId: string; occurredAt: Instant } & Pick<EventRecord, 'dataForm' | 'data' | 'changes'>;
}

export interface WebhookStore {
  /** ATOMIC: WEBHOOK_LIMIT_REACHED when the application has its most endpoints (checkEndpointCap). */
  insertWebhookEndpoint(endpoint: WebhookEndpointRecord, actor: Actor): Promise<void>;
  /** ATOMIC: records a `webhook.test` event, or throws WEBHOOK_TEST_LIMITED (countTestSend) and records nothing. */
  recordWebhookTest(draft: EventDraft, now: Instant, actor: Actor): Promise<void>;
  listWebhookEndpoints(applicationId: string): Promise<WebhookEndpointRecord[]>;
  findWebhookEndpoint(applicationId: string, endpointId: string): Promise<WebhookEndpointRecord | null>;
  /** The endpoint after `change`; null when the application has no such endpoint. */
  updateWebhookEndpoint(applicationId: string, endpointId: string, change: WebhookEndpointChange, now: Instant, actor: Actor): Promise<WebhookEndpointRecord | null>;
  /** Removes the endpoint and its deliveries; false when there was none. */
  deleteWebhookEndpoint(applicationId: string, endpointId: string, now: Instant, actor: Actor): Promise<boolean>;
  /** ATOMIC: `secretSealed` becomes the secret, the one it replaces signing beside it until
   * `previousUntil`. Null when the application has no such endpoint. */
  rotateWebhookSecret(applicationId: string, endpointId: string, secretSealed: string, previousUntil: Instant, now: Instant, actor: Actor): Promise<WebhookEndpointRecord | null>;
  /** The endpoint's deliveries, newest first, with their attempts. */
  listWebhookDeliveries(applicationId: string, endpointId: string, limit: number): Promise<WebhookDeliveryRecord[]>;
  /** A new attempt at `now` (same event, same webhook-id); false when the endpoint has no such delivery. */
  redeliverWebhook(applicationId: string, endpointId: string, deliveryId: string, now: Instant): Promise<boolean>;
}

export interface WebhookQueue {
  /** ATOMIC: up to `limit` recorded events not yet fanned out, oldest first, become one pending
   * delivery per enabled endpoint subscribed (receivesEvent) that existed when the event happened;
   * each event is fanned out once, whatever number of instances ask at once. Returns how many events it took. */
  fanOutWebhookEvents(now: Instant, limit: number): Promise<number>;
  /** ATOMIC: the oldest due pending delivery, leased to `workerId` for `leaseMs`; null when none is due. */
  claimWebhookDelivery(workerId: string, now: Instant, leaseMs: number): Promise<ClaimedDelivery | null>;
  /** ATOMIC: records `attempt` (if one was made) and takes `step`: the delivery's new state, the
   * endpoint disabled (`gone`) or marked failing (`exhausted`), or cleared of failing (`succeeded`).
   * 'lost' when the worker no longer held the delivery (the attempt is still recorded). */
  settleWebhookDelivery(deliveryId: string, workerId: string, attempt: WebhookAttemptRecord | null, step: DeliveryStep, now: Instant): Promise<'settled' | 'lost'>;
}
