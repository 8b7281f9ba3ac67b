// Signed integration answers (docs/api.md, Response signing): x-timestamp and x-signature, one
// entry per signing key (two during a rotation). The signed bytes come from
// src/signing/response-signature.ts, which clients use to verify.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateApplication, matchKnownApplication } from '../../application/authenticate-application.js';
import type { Deps } from '../../application/deps.js';
import type { ApplicationRecord, FileRecord, ResponseSigningKey } from '../../application/records.js';
import { withSigningKeys } from '../../application/signing-keys.js';
import { isDomainError, validationError } from '../../domain/errors.js';
import { bodyDigest, downloadBodyDigest, isWellFormedNonce, responseKeyId, responseSignatureBase, signatureHeader } from '../../signing/response-signature.js';
import { header } from './request-parts.js';

export interface ResponseSigning {
  /** x-api-key and x-api-secret: the application the request is for, whose key signs the answer. */
  applicationOf(request: FastifyRequest): Promise<ApplicationRecord>;
  /** The answer streams this file's stored contents: it is signed by their digest, not by its bytes. */
  streamsStoredFile(request: FastifyRequest, file: FileRecord): void;
}

/** The bytes a body held whole is sent as: a HEAD answer sends none. */
function sentBody(request: FastifyRequest, payload: unknown): string | Uint8Array {
  if (request.method === 'HEAD' || payload === undefined || payload === null) return '';
  if (typeof payload === 'string' || payload instanceof Uint8Array) return payload;
  throw new Error('an integration answer streamed something other than a stored file');
}

/** Registers the signing hooks on the integration plugin; its routes find their application through it. */
export function responseSigning(app: FastifyInstance, deps: Deps): ResponseSigning {
  // The application each API key last authenticated as in this process: while the database cannot
  // be read, an answer to a request whose key and secret match one is still signed by its keys, so
  // a client pinning them can tell the outage from tampering (docs/api.md, Response signing).
  const lastKnown = new Map<string, ApplicationRecord>();
  const remember = (application: ApplicationRecord): ApplicationRecord => {
    if (lastKnown.size >= 1024 && !lastKnown.has(application.apiKey)) lastKnown.clear();
    lastKnown.set(application.apiKey, application);
    return application;
  };
  const knownWhileUnavailable = (request: FastifyRequest, error: unknown): ApplicationRecord | null =>
    isDomainError(error) && error.code === 'SERVICE_UNAVAILABLE' ? matchKnownApplication(deps, (apiKey) => lastKnown.get(apiKey), header(request, 'x-api-key'), header(request, 'x-api-secret')) : null;
  const authenticate = (request: FastifyRequest) =>
    authenticateApplication(deps, header(request, 'x-api-key'), header(request, 'x-api-secret')).then(remember, (error: unknown) => knownWhileUnavailable(request, error));
  // A key's id is a digest of its public key: made once per key, not per answer (a few keys sign
  // most answers; past the bound the memory starts over).
  const keyIds = new Map<string, string>();
  const keyIdOf = (publicKey: string) => {
    let id = keyIds.get(publicKey);
    if (id === undefined) {
      if (keyIds.size >= 1024) keyIds.clear();
      keyIds.set(publicKey, (id = responseKeyId(publicKey)));
    }
    return id;
  };

  async function sign(request: FastifyRequest, reply: FastifyReply, application: ApplicationRecord, payload: unknown): Promise<void> {
    const { response, previousResponse } = application.signing;
    const keys = [response, previousResponse].filter((k): k is ResponseSigningKey => k !== null);
    const status = reply.statusCode;
    const storedSha256 = status === 200 || status === 206 ? (request.storedSha256 ?? undefined) : undefined;
    const contentRange = reply.getHeader('content-range');
    const timestamp = Math.floor(deps.clock.now() / 1000);
    const base = responseSignatureBase({
      timestamp,
      status,
      method: request.method,
      pathAndQuery: request.raw.url ?? request.url,
      applicationId: application.id,
      nonce: header(request, 'x-nonce') ?? '',
      requestSignature: header(request, 'x-signature') ?? '',
      bodyDigest: storedSha256 === undefined ? bodyDigest(sentBody(request, payload)) : downloadBodyDigest(storedSha256, contentRange === undefined ? undefined : String(contentRange)),
    });
    if (storedSha256 !== undefined) reply.header('x-content-sha256', storedSha256);
    reply.header('x-timestamp', String(timestamp));
    const entries = await Promise.all(keys.map(async (key) => ({ keyId: keyIdOf(key.publicKey), signature: await deps.responseKeys.sign(key, base) })));
    reply.header('x-signature', signatureHeader(entries));
  }

  /** Signs an answer given before its route knew the application (a malformed body or x-nonce: the
   * body is checked before the key), or for an application that still lacks keys. */
  async function signLate(request: FastifyRequest, reply: FastifyReply, known: ApplicationRecord | undefined, payload: unknown): Promise<void> {
    const application = known ?? (await authenticate(request));
    if (application === null || !application.settings.responseSigning) return;
    const keyed = await withSigningKeys(deps, application);
    if (keyed.signing.response !== null) await sign(request, reply, keyed, payload);
  }

  app.addHook('preValidation', (request, _reply, done) => {
    const nonce = header(request, 'x-nonce');
    done(nonce === undefined || isWellFormedNonce(nonce) ? undefined : validationError('x-nonce', 'must be 16 to 64 characters of A-Z, a-z, 0-9, _ and -'));
  });

  // Callback style: it runs on every answer, and an unsigned one goes on at once.
  app.addHook('onSend', (request, reply, payload, done) => {
    const known = request.signingApplication;
    if (known === null || (known !== undefined && !known.settings.responseSigning)) return done(null, payload);
    const signing = known !== undefined && known.signing.response !== null ? sign(request, reply, known, payload) : signLate(request, reply, known, payload);
    signing.then(
      () => done(null, payload),
      (error: unknown) => {
        // The store or the signature failed while the answer was going out: it goes unsigned, which clients refuse.
        request.log.error({ err: error }, 'response signing failed');
        done(null, payload);
      },
    );
  });

  return {
    async applicationOf(request) {
      try {
        const authenticated = await authenticateApplication(deps, header(request, 'x-api-key'), header(request, 'x-api-secret'));
        request.signingApplication = remember(authenticated);
        return authenticated;
      } catch (error) {
        request.signingApplication = knownWhileUnavailable(request, error);
        throw error;
      }
    },
    streamsStoredFile(request, file) {
      if (file.state.stored !== null) request.storedSha256 = file.state.stored.storedSha256;
    },
  };
}
