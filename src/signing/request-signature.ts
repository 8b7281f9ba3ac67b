// The bytes a signed integration request covers and its signature header (docs/signing.md, "Request
// signatures"). Pure and node-only, like response-signature.ts: a client signs what this module
// builds, and the server builds the same bytes to check it.
import { createHmac } from 'node:crypto';
import { SIGNATURE_ENTRY_VERSION, sha256Hex } from './response-signature.js';

export const REQUEST_SIGNATURE_CONTEXT = 'gatehouse-request-v1';

/** The credential headers whose values the signature covers, in the order they are joined. */
export const SIGNED_CREDENTIAL_HEADERS = ['authorization', 'x-api-username', 'x-api-password', 'x-api-license-code', 'x-hardware-id'] as const;

export type SignedCredentialHeader = (typeof SIGNED_CREDENTIAL_HEADERS)[number];

/** What a request signature binds together. */
export interface SignedRequest {
  /** The x-timestamp header as sent: the client's time in Unix seconds. */
  timestamp: string;
  /** The x-nonce header as sent. */
  nonce: string;
  method: string;
  /** The path and query exactly as sent, e.g. /api/integration/app_context?lang=en. */
  pathAndQuery: string;
  /** The x-api-key header as sent. */
  apiKey: string;
  /** credentialsDigest of the credential headers sent. */
  credentialsDigest: string;
  /** The hex SHA-256 of the body bytes sent (of nothing for a request without a body). */
  bodyDigest: string;
}

/** The text signed, lines joined by \n with no trailing newline (MAC its UTF-8 bytes). */
export function requestSignatureBase(r: SignedRequest): string {
  return [REQUEST_SIGNATURE_CONTEXT, r.timestamp, r.nonce, r.method, r.pathAndQuery, r.apiKey, r.credentialsDigest, r.bodyDigest].join('\n');
}

/** The hex SHA-256 of the credential headers' values joined by \n, in SIGNED_CREDENTIAL_HEADERS order;
 * an absent header is an empty value (so five absent headers digest "\n\n\n\n"). */
export function credentialsDigest(headers: Partial<Record<SignedCredentialHeader, string>>): string {
  return sha256Hex(SIGNED_CREDENTIAL_HEADERS.map((name) => headers[name] ?? '').join('\n'));
}

/** The hex SHA-256 of a request body's bytes; a request without a body digests the empty string. */
export const requestBodyDigest = (body: Uint8Array | string): string => sha256Hex(body);

/** The x-signature header of a request: `v1=` and the padded standard base64 of the HMAC-SHA256 of the
 * base's UTF-8 bytes under the raw request signing key (its 32 bytes, given in base64 as the console
 * shows it). */
export function requestSignatureHeader(requestSigningKey: string, base: string): string {
  const mac = createHmac('sha256', Buffer.from(requestSigningKey, 'base64')).update(base, 'utf8').digest('base64');
  return `${SIGNATURE_ENTRY_VERSION}=${mac}`;
}
