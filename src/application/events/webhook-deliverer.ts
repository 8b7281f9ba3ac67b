// The webhook delivery worker (docs/api.md, Webhooks, "Retries"), so requests never wait on a send:
// changes only record events, which this finds at its next poll. A crash mid-attempt leaves the
// delivery leased; it is retaken, with the same webhook-id, once the lease lapses.
import { toIso } from '../../domain/time.js';
import { DELIVERY_LEASE_MS, nextStep, type DeliveryStep } from '../../domain/webhook-retries.js';
import type { Deps } from '../deps.js';
import type { RenderEvent } from '../ports/event-renderer.js';
import type { ClaimedDelivery, WebhookAttemptRecord, WebhookQueue } from '../ports/webhook-store.js';
import { createWorkerPool } from '../worker-pool.js';

export interface WebhookDelivererOptions {
  workerId: string;
  /** Deliveries attempted at once. */
  concurrency: number;
  /** How often idle workers look for due deliveries. */
  pollMs: number;
  /** Spreads the retry delays (the schedule's jitter); seeded in tests. */
  random: () => number;
  leaseMs?: number;
  /** Reports a failure to reach the queue; the worker never throws. */
  onError?: (error: unknown) => void;
}

/** Events fanned out per transaction. */
const FAN_OUT_BATCH = 100;

type DelivererDeps = Pick<Deps, 'clock' | 'secrets' | 'webhooks' | 'renderEvent'> & { store: WebhookQueue };

/** The JSON body every receiver gets (docs/api.md, Webhooks, "Delivery format"), its data rendered from the event's facts. */
export const deliveryBody = (render: RenderEvent, event: ClaimedDelivery['event']): string =>
  JSON.stringify({ type: event.type, timestamp: toIso(event.occurredAt), application_id: event.applicationId, data: render({ ...event, action: event.type }).data });

/** The plain secrets an attempt at `now` is signed with: the current one, and the previous while it lasts. */
function signingSecrets(deps: Pick<Deps, 'secrets'>, endpoint: ClaimedDelivery['endpoint'], now: number): string[] {
  const secrets = [deps.secrets.open(endpoint.secretSealed)];
  if (endpoint.previousSecretSealed !== null && endpoint.previousSecretUntil !== null && now < endpoint.previousSecretUntil) {
    secrets.push(deps.secrets.open(endpoint.previousSecretSealed));
  }
  return secrets;
}

/** Attempts one claimed delivery and settles it. */
async function attempt(deps: DelivererDeps, delivery: ClaimedDelivery, options: WebhookDelivererOptions): Promise<void> {
  const now = deps.clock.now();
  // A disabled endpoint gets nothing more, but the test its owner asked for (to see it work again).
  if (!delivery.endpoint.enabled && delivery.event.type !== 'webhook.test') {
    await deps.store.settleWebhookDelivery(delivery.id, options.workerId, null, { state: 'failed', why: 'disabled' }, now);
    return;
  }
  let secrets: string[];
  try {
    secrets = signingSecrets(deps, delivery.endpoint, now);
  } catch {
    // A secret sealed under another master key: an attempt that cannot be signed fails as any
    // other does (and is retried), rather than holding the delivery's lease forever.
    const record = { attemptedAt: now, statusCode: null, latencyMs: 0, error: 'the signing secret could not be opened (master key changed?)', responseBody: null };
    await deps.store.settleWebhookDelivery(delivery.id, options.workerId, record, nextStep(delivery.attempts + 1, { statusCode: null, retryAfter: null }, now, options.random), now);
    return;
  }
  const result = await deps.webhooks.send({ url: delivery.endpoint.url, id: delivery.event.id, at: now, body: deliveryBody(deps.renderEvent, delivery.event), secrets });
  const record: WebhookAttemptRecord = {
    attemptedAt: now,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error: result.error ?? (result.statusCode !== null && (result.statusCode < 200 || result.statusCode >= 300) ? `the receiver answered ${result.statusCode}` : null),
    responseBody: result.responseBody,
  };
  const settledAt = deps.clock.now();
  const step: DeliveryStep = nextStep(delivery.attempts + 1, result, settledAt, options.random);
  await deps.store.settleWebhookDelivery(delivery.id, options.workerId, record, step, settledAt);
}

export interface WebhookDeliverer {
  start(): void;
  /** Stops claiming, and waits for attempts in hand to finish. */
  stop(): Promise<void>;
  /** Attempts due deliveries until none is due; for tests and scripts. Returns how many. */
  drain(): Promise<number>;
}

export function createWebhookDeliverer(deps: DelivererDeps, options: WebhookDelivererOptions): WebhookDeliverer {
  const leaseMs = options.leaseMs ?? DELIVERY_LEASE_MS;
  const pool = createWorkerPool({
    concurrency: options.concurrency,
    pollMs: options.pollMs,
    async takeOne() {
      // Every event recorded so far has its deliveries before the oldest due one is claimed.
      while ((await deps.store.fanOutWebhookEvents(deps.clock.now(), FAN_OUT_BATCH)) === FAN_OUT_BATCH);
      const delivery = await deps.store.claimWebhookDelivery(options.workerId, deps.clock.now(), leaseMs);
      if (delivery === null) return false;
      await attempt(deps, delivery, options);
      return true;
    },
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
  return { start: pool.start, stop: pool.stop, drain: pool.drain };
}
