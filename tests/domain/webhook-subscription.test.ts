import { describe, expect, it } from 'vitest';
import { receivesEvent } from '../../src/domain/webhook-subscription.js';

const endpoint = (over: Partial<{ id: string; enabled: boolean; events: string[] }> = {}) => ({ id: 'e1', enabled: true, events: ['*'], ...over });

describe('receivesEvent', () => {
  it('an enabled endpoint receives what it subscribed to, by name or "*"', () => {
    expect(receivesEvent(endpoint(), 'user.created', 'u1')).toBe(true);
    expect(receivesEvent(endpoint({ events: ['user.created'] }), 'user.created', 'u1')).toBe(true);
    expect(receivesEvent(endpoint({ events: ['user.created'] }), 'ban.created', 'b1')).toBe(false);
  });

  it('a disabled endpoint receives nothing but the test sent to it', () => {
    expect(receivesEvent(endpoint({ enabled: false }), 'user.created', 'u1')).toBe(false);
    expect(receivesEvent(endpoint({ enabled: false, events: ['user.created'] }), 'webhook.test', 'e1')).toBe(true);
  });

  it('webhook.test goes to the endpoint it tests only, whatever the others subscribed to', () => {
    expect(receivesEvent(endpoint({ id: 'e2' }), 'webhook.test', 'e1')).toBe(false);
  });
});
