// Webhook endpoints as the dashboard edits and shows them (docs/api.md, Webhooks): the events an
// endpoint subscribes to, and whether it is in trouble.
import { WEBHOOK_EVENTS } from '../../../application/events/event-draft.js';
import type { WebhookAttempt, WebhookEndpoint } from './types.js';

export { WEBHOOK_EVENTS };

/** The subscription sent: every event (`["*"]`), or the chosen ones in the list's order. */
export function eventsBody(all: boolean, chosen: Iterable<string>): string[] {
  if (all) return ['*'];
  const set = new Set(chosen);
  return WEBHOOK_EVENTS.filter((e) => set.has(e));
}

export const subscribesToAll = (events: string[]) => events.includes('*');

export function describeEvents(events: string[]): string {
  if (subscribesToAll(events)) return 'All events';
  if (events.length === 0) return 'No events';
  return events.join(', ');
}

/** `message` says why; an endpoint the owner disabled needs no words beyond its badge. */
export type Health = { state: 'ok' } | { state: 'disabled'; message: string | null } | { state: 'failing'; message: string };

/** What the owner must see first about an endpoint: disabled (by them, or by the server and why),
 * failing (a delivery used up its attempts), or fine. */
export function endpointHealth(e: WebhookEndpoint, formatTime: (iso: string) => string = (iso) => iso): Health {
  if (!e.enabled) return { state: 'disabled', message: e.disabled_reason ? `Disabled: ${e.disabled_reason}` : null };
  if (e.failing_since) return { state: 'failing', message: `Failing since ${formatTime(e.failing_since)}` };
  if (e.disabled_reason) return { state: 'failing', message: e.disabled_reason };
  return { state: 'ok' };
}

/** Whether the page warns about the endpoint at its top: it is failing, or the server disabled it (a
 * 410); one the owner disabled themselves is only shown so in its row. */
export const needsAttention = (e: WebhookEndpoint) => e.failing_since !== null || e.disabled_reason !== null;

/** An attempt's outcome in a few words: the status code, else its error. */
export function attemptOutcome(a: WebhookAttempt): string {
  if (a.status_code !== null) return a.error ? `${a.status_code}: ${a.error}` : String(a.status_code);
  return a.error ?? 'no answer';
}

export function formatLatency(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
