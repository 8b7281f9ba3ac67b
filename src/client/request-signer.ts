// How the SDK signs its integration requests when given the application's request signing key
// (docs/sdk.md, Client SDK, Request signing; docs/signing.md, Request signatures). The bytes come from
// src/signing/request-signature.ts, the module the server checks with, so the two cannot drift.
import { freshNonce } from '../signing/response-signature.js';
import { SIGNED_CREDENTIAL_HEADERS, credentialsDigest, requestBodyDigest, requestSignatureBase, requestSignatureHeader } from '../signing/request-signature.js';

const KEY_LENGTH = 32;
/** A server time is a decimal count of Unix seconds, short enough to stay exact as a number. */
const TIMESTAMP_PATTERN = /^\d{1,15}$/;

/** A request about to be sent, as the signature binds it. */
export interface RequestToSign {
  method: string;
  /** The request target as fetch sends it: the URL's path and query. */
  pathAndQuery: string;
  /** Every header sent so far (x-api-key and the credential headers among them), names in lower case. */
  headers: Record<string, string>;
  /** The body's bytes as sent; none for a request without a body. */
  body?: Uint8Array;
}

export interface RequestSigner {
  /** The x-timestamp, x-nonce and x-signature headers of `request`, from a fresh nonce and the estimated server time. */
  sign(request: RequestToSign): { 'x-timestamp': string; 'x-nonce': string; 'x-signature': string };
  /** Learns the server's clock from an answer's x-timestamp, or its Date header when it has none.
   * Returns whether the estimate moved by more than a second, i.e. whether a request refused as
   * SIGNATURE_EXPIRED is worth signing again. */
  observeServerTime(headers: Headers): boolean;
}

/** The server's time in ms an answer's headers give: its x-timestamp, else its Date; null when neither is usable. */
function serverTimeOf(headers: Headers): number | null {
  const timestamp = headers.get('x-timestamp');
  if (timestamp !== null) return TIMESTAMP_PATTERN.test(timestamp) ? Number(timestamp) * 1000 : null;
  const date = Date.parse(headers.get('date') ?? '');
  return Number.isNaN(date) ? null : date;
}

/** The key's 32 bytes, from its base64 as the console shows it; RangeError for anything else. */
function checkedKey(key: string): string {
  const bytes = Buffer.from(key, 'base64');
  if (bytes.length !== KEY_LENGTH || bytes.toString('base64') !== key) {
    throw new RangeError('requestSigningKey must be the base64 of 32 bytes, as the console shows request_signing_key');
  }
  return key;
}

/** A signer under `key`: the device's clock until the first answer, then the server's time of the
 * latest answer plus the monotonic time since, so neither a device clock that is off nor a change of
 * it meanwhile matters (docs/sdk.md, "The clock of a signed request"). */
export function createRequestSigner(key: string): RequestSigner {
  const signingKey = checkedKey(key);
  /** The server's time (ms) at performance.now() `anchorAt`; null until an answer tells it. */
  let serverTimeAt: number | null = null;
  let anchorAt = 0;
  const estimatedServerTime = () => (serverTimeAt === null ? Date.now() : serverTimeAt + (performance.now() - anchorAt));

  return {
    sign(request) {
      const timestamp = String(Math.floor(estimatedServerTime() / 1000));
      const nonce = freshNonce();
      const credentials = Object.fromEntries(SIGNED_CREDENTIAL_HEADERS.flatMap((name) => (request.headers[name] === undefined ? [] : [[name, request.headers[name]]])));
      const base = requestSignatureBase({
        timestamp,
        nonce,
        method: request.method,
        pathAndQuery: request.pathAndQuery,
        apiKey: request.headers['x-api-key'] ?? '',
        credentialsDigest: credentialsDigest(credentials),
        bodyDigest: requestBodyDigest(request.body ?? ''),
      });
      return { 'x-timestamp': timestamp, 'x-nonce': nonce, 'x-signature': requestSignatureHeader(signingKey, base) };
    },
    observeServerTime(headers) {
      const serverTime = serverTimeOf(headers);
      if (serverTime === null) return false;
      const before = estimatedServerTime();
      // Both headers are whole seconds, cut down: the middle of that second is the best estimate.
      serverTimeAt = serverTime + 500;
      anchorAt = performance.now();
      return Math.abs(serverTimeAt - before) > 1000;
    },
  };
}
