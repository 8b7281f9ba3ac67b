// A webhook signing secret (Standard Webhooks): `whsec_` + base64 of its key bytes, 32 of them.
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_SECRET_BYTES = 32;

/** The secret that shows `key` (WEBHOOK_SECRET_BYTES random bytes). */
export const webhookSecretOf = (key: Uint8Array): string => WEBHOOK_SECRET_PREFIX + Buffer.from(key).toString('base64');

/** The key bytes of a secret. */
export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error(`a webhook secret starts with ${WEBHOOK_SECRET_PREFIX}`);
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/** After a rotation the replaced secret keeps signing this long, beside the new one. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60_000;
