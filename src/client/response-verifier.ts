// How the SDK checks signed answers against the keys it pins (docs/sdk.md, Client SDK; docs/signing.md,
// Verifying in a client). The bytes come from src/signing/response-signature.ts, the module the
// server signs with, so the two cannot drift apart.
import { createHash } from 'node:crypto';
import { ed25519Verifies, pinnedEd25519Keys } from '../signing/ed25519.js';
import { bodyDigest, downloadBodyDigest, freshNonce, parseSignatureHeader, responseSignatureBase } from '../signing/response-signature.js';
import { SignatureError } from './errors.js';

/** x-timestamp: Unix seconds as a decimal integer, short enough to stay exact as a number. */
const TIMESTAMP_PATTERN = /^\d{1,15}$/;
const CONTENT_SHA256_PATTERN = /^[0-9a-f]{64}$/;
/** Statuses whose answers have no body: a Response holding one cannot be built. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** What the client sent, as the signature binds it. */
export interface SentRequest {
  method: string;
  /** The request target as fetch sends it: the URL's path and query. */
  pathAndQuery: string;
  nonce: string;
  /** The request's x-signature header; '' when the client has no request signing key. */
  requestSignature: string;
}

/** An answer whose signature verified: its body is what was checked, `signedAt` its x-timestamp in ms. */
export interface VerifiedAnswer {
  response: Response;
  signedAt: number;
}

export interface ResponseVerifier {
  /** A fresh x-nonce: 24 random bytes as 32 characters of base64url, within the 16-to-64 rule. */
  newNonce(): string;
  /** Reads the whole answer and checks its signature over the bytes read. */
  whole(sent: SentRequest, response: Response): Promise<VerifiedAnswer>;
  /** A download: a success is checked by its headers before the first byte, and its body errors with
   * SignatureError (CONTENT_MISMATCH) at its end when the bytes' SHA-256 is not the signed
   * x-content-sha256. Any other answer (an error body) is checked whole. */
  download(sent: SentRequest, response: Response): Promise<VerifiedAnswer>;
}

/** Lets the connection go when an answer is refused before its body is read. */
const discard = (response: Response) => void response.body?.cancel().catch(() => {});

/** Passes the bytes on, and errors at their end when their SHA-256 is not `expected`. */
function digestCheck(expected: string, status: number): TransformStream<Uint8Array, Uint8Array> {
  const hash = createHash('sha256');
  return new TransformStream({
    transform(chunk, controller) {
      hash.update(chunk);
      controller.enqueue(chunk);
    },
    flush() {
      const actual = hash.digest('hex');
      if (actual !== expected) throw new SignatureError('CONTENT_MISMATCH', status, `the downloaded bytes have SHA-256 ${actual}, not the signed x-content-sha256 ${expected}`);
    },
  });
}

export function createResponseVerifier(publicKeys: string | readonly string[], applicationId: string): ResponseVerifier {
  const keys = pinnedEd25519Keys(publicKeys, 'responseSigningPublicKeys');

  /** Checks the answer's signature over `digest`; its signed time in ms. */
  function check(sent: SentRequest, response: Response, digest: string): number {
    const timestamp = response.headers.get('x-timestamp');
    const header = response.headers.get('x-signature');
    if (timestamp === null || !TIMESTAMP_PATTERN.test(timestamp) || header === null) {
      throw new SignatureError('SIGNATURE_MISSING', response.status, `the answer to ${sent.method} ${sent.pathAndQuery} carries no well-formed x-timestamp and x-signature`);
    }
    const text = responseSignatureBase({
      timestamp: Number(timestamp),
      status: response.status,
      method: sent.method,
      pathAndQuery: sent.pathAndQuery,
      applicationId,
      nonce: sent.nonce,
      requestSignature: sent.requestSignature,
      bodyDigest: digest,
    });
    const bytes = Buffer.from(text, 'utf8');
    const verified = parseSignatureHeader(header).some(({ keyId, signature }) => {
      const key = keys.get(keyId);
      return key !== undefined && ed25519Verifies(key, bytes, Buffer.from(signature, 'base64'));
    });
    if (!verified) throw new SignatureError('SIGNATURE_INVALID', response.status, `no signature by a pinned key verifies the answer to ${sent.method} ${sent.pathAndQuery}`);
    return Number(timestamp) * 1000;
  }

  async function whole(sent: SentRequest, response: Response): Promise<VerifiedAnswer> {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const signedAt = check(sent, response, bodyDigest(bytes));
    const body = NULL_BODY_STATUSES.has(response.status) ? null : bytes;
    return { response: new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers }), signedAt };
  }

  return {
    newNonce: freshNonce,
    whole,
    async download(sent, response) {
      const { status } = response;
      if (status !== 200 && status !== 206) return whole(sent, response);
      const contentSha256 = response.headers.get('x-content-sha256');
      try {
        if (contentSha256 === null || !CONTENT_SHA256_PATTERN.test(contentSha256)) {
          throw new SignatureError('SIGNATURE_MISSING', status, `the download answer to ${sent.pathAndQuery} carries no well-formed x-content-sha256`);
        }
        const signedAt = check(sent, response, downloadBodyDigest(contentSha256, response.headers.get('content-range') ?? undefined));
        // The SDK never asks for a range; a part cannot be held to the whole file's digest.
        if (status === 206) throw new SignatureError('PARTIAL_CONTENT', status, 'the download was answered with a part of the file, which cannot be checked against its digest');
        const body = (response.body ?? new Blob([]).stream()).pipeThrough(digestCheck(contentSha256, status));
        return { response: new Response(body, { status, statusText: response.statusText, headers: response.headers }), signedAt };
      } catch (error) {
        discard(response);
        throw error;
      }
    },
  };
}
