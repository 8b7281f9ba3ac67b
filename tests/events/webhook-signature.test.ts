// The Standard Webhooks signature (docs/api.md, Webhooks, "Delivery format"), checked against the
// standardwebhooks reference library and a known vector of the specification.
import { describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { signatureEntry, signedHeaders } from '../../src/adapters/events/webhook-signature.js';
import { webhookSecretKey, webhookSecretOf } from '../../src/domain/webhook-secret.js';

describe('webhook signatures', () => {
  it('matches the specification example', () => {
    // https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signatureEntry(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('a new secret is whsec_ and base64 of its 32 key bytes', () => {
    const key = new Uint8Array(32).map((_, i) => i);
    const secret = webhookSecretOf(key);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect([...webhookSecretKey(secret)]).toEqual([...key]);
  });

  it('signs with every secret, each verifying with the standardwebhooks library', () => {
    const current = webhookSecretOf(new Uint8Array(32).fill(1));
    const previous = webhookSecretOf(new Uint8Array(32).fill(2));
    const at = 1_780_000_000;
    const body = JSON.stringify({ type: 'user.created', timestamp: '2026-06-08T12:00:00.000Z', application_id: 'a', data: {} });
    const headers = signedHeaders([current, previous], 'evt-1', at, body);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    const now = vi.spyOn(Date, 'now').mockReturnValue(at * 1000);
    try {
      for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(webhookSecretOf(new Uint8Array(32).fill(3))).verify(body, headers)).toThrow();
    } finally {
      now.mockRestore();
    }
  });
});
