// Signed integration requests (docs/api.md, Request signing), checked once the application is known.
// The signed bytes (src/signing/request-signature.ts, which clients sign with) include the SHA-256
// of the body as received, so the integration plugin keeps each JSON body's raw bytes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../application/deps.js';
import { checkRequestSignature } from '../../application/integration/request-signature.js';
import type { ApplicationRecord } from '../../application/records.js';
import { signatureInvalid } from '../../domain/request-signing.js';
import { credentialsDigest, requestBodyDigest, requestSignatureBase, SIGNED_CREDENTIAL_HEADERS, type SignedCredentialHeader } from '../../signing/request-signature.js';
import { callerOf, header } from './request-parts.js';

export interface RequestSigning {
  /** Refuses the request unless it is signed as the application requires; undefined, with nothing
   * to wait for, when the application does not sign its requests. */
  check(request: FastifyRequest, application: ApplicationRecord): Promise<void> | undefined;
}

/** Fastify's own JSON parser, handed the body's bytes instead of their text: it keeps them for the
 * body digest and parses exactly as before (same body limit, errors and lingering close, which all
 * happen before a parser runs). */
function keepRawJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    request.rawJsonBody = bytes;
    // Fastify's default JSON parser is synchronous: it answers through `done`.
    void parse(request, bytes.toString('utf8'), done);
  });
}

/** Registers what the checks need on the integration plugin. */
export function requestSigning(app: FastifyInstance, deps: Deps): RequestSigning {
  keepRawJsonBodies(app);

  /** The body's bytes as received: none for a request without a body (GET and HEAD bodies are never read). */
  function bodyBytes(request: FastifyRequest): Buffer {
    const raw = request.rawJsonBody;
    if (raw !== null) return raw;
    // Only JSON bodies reach an integration route; the bytes of any other were not kept.
    if (request.body !== undefined) throw signatureInvalid();
    return Buffer.alloc(0);
  }

  function base(request: FastifyRequest): string {
    const credentials: Partial<Record<SignedCredentialHeader, string>> = {};
    for (const name of SIGNED_CREDENTIAL_HEADERS) credentials[name] = header(request, name);
    return requestSignatureBase({
      timestamp: header(request, 'x-timestamp') ?? '',
      nonce: header(request, 'x-nonce') ?? '',
      method: request.method,
      pathAndQuery: request.raw.url ?? request.url,
      apiKey: header(request, 'x-api-key') ?? '',
      credentialsDigest: credentialsDigest(credentials),
      bodyDigest: requestBodyDigest(bodyBytes(request)),
    });
  }

  return {
    check(request, application) {
      const presented = {
        timestamp: header(request, 'x-timestamp'),
        nonce: header(request, 'x-nonce'),
        signature: header(request, 'x-signature'),
        base: () => base(request),
      };
      return checkRequestSignature(deps, application, presented, callerOf(request), request.actor);
    },
  };
}
