// A client's check of a signed integration answer (docs/api.md, Response signing), written from
// docs/api.md with node:crypto alone: it shares no code with the server's signer, so it would catch
// the server building the wrong bytes.
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Every line a response signature covers, as the client sees them. */
export interface SignedFields {
  timestamp: string;
  status: string;
  /** `<METHOD> <path and query as sent>`. */
  requestLine: string;
  applicationId: string;
  nonce: string;
  requestSignature: string;
  bodyDigest: string;
}

/** What the client sent. */
export interface SentRequest {
  method: string;
  url: string;
  nonce?: string;
  signature?: string;
}

/** The fields of an answer to `sent`: the body digest from the bytes received (a download: its content digest and range). */
export function fieldsOf(res: LightMyRequestResponse, sent: SentRequest, applicationId: string): SignedFields {
  const contentSha256 = res.headers['x-content-sha256'];
  const contentRange = res.headers['content-range'];
  return {
    timestamp: String(res.headers['x-timestamp']),
    status: String(res.statusCode),
    requestLine: `${sent.method} ${sent.url}`,
    applicationId,
    nonce: sent.nonce ?? '',
    requestSignature: sent.signature ?? '',
    bodyDigest: contentSha256 === undefined ? sha256(res.rawPayload) : `${String(contentSha256)}:${contentRange === undefined ? '' : String(contentRange)}`,
  };
}

/** The key id of a base64 raw Ed25519 public key: 16 hex digits of its SHA-256. */
export const keyIdOf = (publicKey: string) => sha256(Buffer.from(publicKey, 'base64')).slice(0, 16);

/** The x-signature entries, by key id. */
export function signatureEntries(res: LightMyRequestResponse): Map<string, string> {
  const header = res.headers['x-signature'];
  const entries = new Map<string, string>();
  if (typeof header !== 'string') return entries;
  for (const entry of header.split(' ')) {
    const match = /^v1=([0-9a-f]{16}):([A-Za-z0-9+/]+={0,2})$/.exec(entry);
    if (match === null) throw new Error(`malformed x-signature entry: ${entry}`);
    entries.set(match[1] as string, match[2] as string);
  }
  return entries;
}

/** Whether the answer carries a valid signature by `publicKey` over `fields`. */
export function verifies(res: LightMyRequestResponse, fields: SignedFields, publicKey: string): boolean {
  const signature = signatureEntries(res).get(keyIdOf(publicKey));
  if (signature === undefined) return false;
  const text = ['gatehouse-response-v1', fields.timestamp, fields.status, fields.requestLine, fields.applicationId, fields.nonce, fields.requestSignature, fields.bodyDigest].join('\n');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey, 'base64').toString('base64url') }, format: 'jwk' });
  return verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'base64'));
}

/** A fresh, well-formed x-nonce. */
export const newNonce = () => randomBytes(24).toString('base64url');
