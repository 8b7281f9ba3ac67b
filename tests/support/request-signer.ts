// A client's signer of integration requests (docs/api.md, Request signing), written from docs/api.md
// with node:crypto alone: it shares no code with the server's check, so it would catch the server
// building the wrong bytes.
import { createHash, createHmac, randomBytes } from 'node:crypto';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

export interface RequestToSign {
  method: string;
  /** The path and query as sent. */
  url: string;
  /** Every header sent (x-api-key and the credential headers among them). */
  headers: Record<string, string>;
  /** The body's bytes as sent; none when absent. */
  body?: Buffer | string;
  /** Unix seconds (as sent, when a string). */
  timestamp: number | string;
  nonce: string;
}

/** The x-signature value of `r` under `key` (the base64 request signing key). */
export function signRequest(r: RequestToSign, key: string): string {
  const credentials = ['authorization', 'x-api-username', 'x-api-password', 'x-api-license-code', 'x-hardware-id'].map((h) => r.headers[h] ?? '').join('\n');
  const text = ['gatehouse-request-v1', String(r.timestamp), r.nonce, r.method, r.url, r.headers['x-api-key'] ?? '', sha256(credentials), sha256(r.body ?? '')].join('\n');
  return `v1=${createHmac('sha256', Buffer.from(key, 'base64')).update(text, 'utf8').digest('base64')}`;
}

/** A fresh, well-formed x-nonce. */
export const freshNonce = () => randomBytes(18).toString('base64url');

export interface SignedInjectOptions {
  method: 'GET' | 'POST' | 'HEAD';
  url: string;
  headers: Record<string, string>;
  /** A JSON body, sent as exactly these bytes. */
  json?: unknown;
  key: string;
  /** The client's clock, in ms. */
  now: number;
  nonce?: string;
}

/** A signed request, as inject options. */
export interface SignedRequestOptions {
  method: SignedInjectOptions['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Inject options of a signed request: a JSON body is serialized once and those bytes signed and sent. */
export function signedInject(o: SignedInjectOptions): SignedRequestOptions {
  const body = o.json === undefined ? undefined : JSON.stringify(o.json);
  const headers: Record<string, string> = { ...o.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const timestamp = Math.floor(o.now / 1000);
  const nonce = o.nonce ?? freshNonce();
  const signature = signRequest({ method: o.method, url: o.url, headers, ...(body === undefined ? {} : { body }), timestamp, nonce }, o.key);
  return {
    method: o.method,
    url: o.url,
    headers: { ...headers, 'x-timestamp': String(timestamp), 'x-nonce': nonce, 'x-signature': signature },
    ...(body === undefined ? {} : { payload: body }),
  };
}
