import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS } from '../../src/application/events/event-draft.js';
import { attemptOutcome, describeEvents, endpointHealth, eventsBody, formatLatency, needsAttention } from '../../src/adapters/dashboard/src/webhooks.js';
import type { WebhookEndpoint } from '../../src/adapters/dashboard/src/types.js';

const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: '00000000-0000-4000-8000-000000000001',
  url: 'https://example.com/hook',
  events: ['*'],
  description: null,
  enabled: true,
  failing_since: null,
  disabled_reason: null,
  created_at: '2026-06-08T12:00:00.000Z',
  updated_at: '2026-06-08T12:00:00.000Z',
  ...over,
});

describe('dashboard webhooks', () => {
  it('subscribes to everything as ["*"], else to the chosen events in the list\'s order, unknown names dropped', () => {
    expect(eventsBody(true, ['user.created'])).toEqual(['*']);
    expect(eventsBody(false, ['ban.created', 'user.created', 'not.an.event'])).toEqual(['user.created', 'ban.created']);
    expect(eventsBody(false, [])).toEqual([]);
    expect(eventsBody(false, WEBHOOK_EVENTS)).toEqual([...WEBHOOK_EVENTS]);
  });

  it('describes the subscription', () => {
    expect(describeEvents(['*'])).toBe('All events');
    expect(describeEvents([])).toBe('No events');
    expect(describeEvents(['user.created', 'ban.created'])).toBe('user.created, ban.created');
  });

  it('puts disabled before failing, and says why', () => {
    expect(endpointHealth(endpoint())).toEqual({ state: 'ok' });
    expect(endpointHealth(endpoint({ enabled: false }))).toEqual({ state: 'disabled', message: null });
    expect(endpointHealth(endpoint({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' }))).toEqual({ state: 'disabled', message: 'Disabled: the receiver answered 410 Gone' });
    expect(endpointHealth(endpoint({ failing_since: '2026-06-08T13:00:00.000Z' }), (iso) => `at ${iso}`)).toEqual({ state: 'failing', message: 'Failing since at 2026-06-08T13:00:00.000Z' });
    expect(endpointHealth(endpoint({ enabled: false, failing_since: '2026-06-08T13:00:00.000Z' })).state).toBe('disabled');
    expect(endpointHealth(endpoint({ disabled_reason: 'every attempt failed' }))).toEqual({ state: 'failing', message: 'every attempt failed' });
  });

  it('warns at the top of the page about failing endpoints and those the server disabled, not those the owner disabled', () => {
    expect(needsAttention(endpoint())).toBe(false);
    expect(needsAttention(endpoint({ enabled: false }))).toBe(false);
    expect(needsAttention(endpoint({ failing_since: '2026-06-08T13:00:00.000Z' }))).toBe(true);
    expect(needsAttention(endpoint({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' }))).toBe(true);
  });

  it('says how an attempt went and how long it took', () => {
    const at = '2026-06-08T12:00:00.000Z';
    expect(attemptOutcome({ attempted_at: at, status_code: 200, latency_ms: 12, error: null, response_body: 'ok' })).toBe('200');
    expect(attemptOutcome({ attempted_at: at, status_code: 500, latency_ms: 12, error: 'not a 2xx', response_body: null })).toBe('500: not a 2xx');
    expect(attemptOutcome({ attempted_at: at, status_code: null, latency_ms: 15000, error: 'timed out', response_body: null })).toBe('timed out');
    expect(attemptOutcome({ attempted_at: at, status_code: null, latency_ms: 3, error: null, response_body: null })).toBe('no answer');
    expect(formatLatency(87)).toBe('87 ms');
    expect(formatLatency(1500)).toBe('1.5 s');
  });
});
