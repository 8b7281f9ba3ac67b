// Which endpoints receive an event (docs/api.md, Webhooks): an enabled endpoint subscribed to the
// event's name or to "*"; `webhook.test` goes only to the endpoint it tests, enabled or not (its
// owner asked for it, to check a receiver before turning it back on).
export interface Subscriber {
  id: string;
  enabled: boolean;
  /** Event names, or ["*"]. */
  events: readonly string[];
}

/** Whether `endpoint` receives the event `action` whose target is `targetId`. */
export function receivesEvent(endpoint: Subscriber, action: string, targetId: string): boolean {
  if (action === 'webhook.test') return endpoint.id === targetId;
  return endpoint.enabled && (endpoint.events.includes('*') || endpoint.events.includes(action));
}
