// The bytes a signed integration response covers and the headers that carry its signatures
// (docs/signing.md, docs/api.md "Response signing"). Pure and node-only, like src/file-format: the
// server signs what this module builds, and a client builds the same bytes to verify.
import { createHash, randomBytes } from 'node:crypto';

export const RESPONSE_SIGNATURE_CONTEXT = 'gatehouse-response-v1';

/** The version tag of each x-signature entry. */
export const SIGNATURE_ENTRY_VERSION = 'v1';

/** What a response signature binds together. */
export interface SignedResponse {
  /** The x-timestamp header: the server's time in Unix seconds. */
  timestamp: number;
  status: number;
  method: string;
  /** The request's path and query exactly as received. */
  pathAndQuery: string;
  applicationId: string;
  /** The request's x-nonce header, or '' when it sent none. */
  nonce: string;
  /** The request's x-signature header, or '' when it sent none. */
  requestSignature: string;
  /** bodyDigest or downloadBodyDigest of what the response carries. */
  bodyDigest: string;
}

/** The text signed, lines joined by \n with no trailing newline (sign and verify its UTF-8 bytes). */
export function responseSignatureBase(r: SignedResponse): string {
  return [RESPONSE_SIGNATURE_CONTEXT, String(r.timestamp), String(r.status), `${r.method} ${r.pathAndQuery}`, r.applicationId, r.nonce, r.requestSignature, r.bodyDigest].join('\n');
}

export const sha256Hex = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** The digest of a response body held whole (an empty body digests the empty string). */
export const bodyDigest = (body: Uint8Array | string): string => sha256Hex(body);

/** A download's digest: the whole stored file's x-content-sha256 and the Content-Range header (empty
 * for a whole file), so the signature is made before the first byte is sent. */
export const downloadBodyDigest = (contentSha256: string, contentRange: string | undefined): string => `${contentSha256}:${contentRange ?? ''}`;

/** The id of a response signing key, from its public key as the console shows it (base64 of the raw
 * 32 bytes): the first 16 hex digits of the SHA-256 of those raw bytes. */
export const responseKeyId = (publicKey: string): string => sha256Hex(Buffer.from(publicKey, 'base64')).slice(0, 16);

/** One x-signature entry: a key id and its base64 signature. */
export interface SignatureEntry {
  keyId: string;
  signature: string;
}

/** The x-signature header: one `v1=<key id>:<base64 signature>` entry per signing key, space-separated. */
export function signatureHeader(entries: ReadonlyArray<SignatureEntry>): string {
  return entries.map((e) => `${SIGNATURE_ENTRY_VERSION}=${e.keyId}:${e.signature}`).join(' ');
}

const ENTRY_PATTERN = new RegExp(`^${SIGNATURE_ENTRY_VERSION}=([0-9a-f]{16}):([A-Za-z0-9+/]+={0,2})$`);

/** The entries of an x-signature header, the inverse of signatureHeader. Entries of another version or
 * shape are left out, not refused, so a later version can add entries that older clients pass over; a
 * client that finds no entry by a key it pins refuses the answer. */
export const parseSignatureHeader = (header: string): SignatureEntry[] =>
  header.split(' ').flatMap((entry) => {
    const match = ENTRY_PATTERN.exec(entry);
    return match === null ? [] : [{ keyId: match[1] as string, signature: match[2] as string }];
  });

/** A client's x-nonce: 16 to 64 characters of [A-Za-z0-9_-]. */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

export const isWellFormedNonce = (nonce: string): boolean => NONCE_PATTERN.test(nonce);

/** A fresh x-nonce as clients send one: 192 random bits, 32 characters of the allowed alphabet. */
export const freshNonce = (): string => randomBytes(24).toString('base64url');
