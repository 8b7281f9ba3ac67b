import { randomBytes, webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { SessionClaims, TokenService } from '../../application/ports/token-service.js';

const ISSUER = 'gatehouse';
/** Verified tokens remembered; a client sends its token with every request until it logs in again. */
const VERIFIED_MEMO_SIZE = 10_000;

/**
 * Session tokens are HS256 JWTs naming the session, application, user and device. The signature
 * turns away forged or garbled tokens without a database read; the session row decides whether the
 * token is still live (revocation, expiry, caps).
 */
export function createSessionTokens(key: Uint8Array): TokenService {
  // jose imports a raw secret into WebCrypto on every call; imported once on first use instead
  // (not here: no async work in a factory).
  let cryptoKey: Promise<webcrypto.CryptoKey> | null = null;
  const signingKey = () =>
    (cryptoKey ??= webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));
  // Verifying costs ~70 µs of WebCrypto work, about as much as the rest of an app_context
  // request. A token's signature and claims depend on nothing but its bytes and this key, so a
  // token verified once is remembered (by its exact text; only tokens that verified get in). The
  // session row still decides, on every request, whether the token lives.
  const verified = new Map<string, SessionClaims>();
  const remember = (token: string, claims: SessionClaims) => {
    if (verified.size >= VERIFIED_MEMO_SIZE) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
  };
  return {
    issue: async (c) =>
      // `n`: 128 random bits, so every token holds CSPRNG entropy beyond its (UUID) session id.
      new SignJWT({ app: c.applicationId, hw: c.hardwareId, n: randomBytes(16).toString('base64url') })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setJti(c.sessionId)
        .setSubject(c.userId)
        .setExpirationTime(Math.floor(c.expiresAt / 1000))
        .sign(await signingKey()),
    async read(token) {
      if (token.length > 2048) return null;
      const known = verified.get(token);
      if (known !== undefined) return known;
      try {
        // Expiry is judged against the session row with the service clock, not here.
        const { payload } = await jwtVerify(token, await signingKey(), {
          algorithms: ['HS256'],
          issuer: ISSUER,
          clockTolerance: Number.MAX_SAFE_INTEGER,
        });
        const { jti, sub, app, hw, exp } = payload;
        if (typeof jti !== 'string' || typeof sub !== 'string' || typeof app !== 'string' || typeof exp !== 'number') return null;
        if (hw !== null && typeof hw !== 'string') return null;
        const claims: SessionClaims = { sessionId: jti, applicationId: app, userId: sub, hardwareId: hw, expiresAt: exp * 1000 };
        remember(token, claims);
        return claims;
      } catch {
        return null;
      }
    },
  };
}
