// The Standard Webhooks signature (docs/api.md, Webhooks, "Delivery format"): HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>" under the secret's key bytes, sent as `v1,<base64>`;
// while a secret rotates, one entry per secret, space-separated.
import { createHmac } from 'node:crypto';
import { webhookSecretKey } from '../../domain/webhook-secret.js';

/** One `v1,<base64>` entry: the signature of the message under `secret`. */
export function signatureEntry(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', webhookSecretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The headers of a delivery signed with every secret of `secrets` (the current one first). */
export function signedHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signatureEntry(s, id, timestampSeconds, body)).join(' '),
  };
}
