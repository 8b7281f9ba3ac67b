import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { SessionClaims, TokenService } from '../../application/ports.js';

const ISSUER = 'gatehouse';

/**
 * Session tokens are HS256 JWTs naming the session, application, user and device. The signature
 * turns away forged or garbled tokens without a database read; the session row decides whether the
 * token is still live (revocation, expiry, caps).
 */
export function createSessionTokens(key: Uint8Array): TokenService {
  return {
    issue: (c) =>
      // `n`: 128 random bits, so every token holds CSPRNG entropy beyond its (UUID) session id.
      new SignJWT({ app: c.applicationId, hw: c.hardwareId, n: randomBytes(16).toString('base64url') })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setJti(c.sessionId)
        .setSubject(c.userId)
        .setExpirationTime(Math.floor(c.expiresAt / 1000))
        .sign(key),
    async read(token) {
      if (token.length > 2048) return null;
      try {
        // Expiry is judged against the session row with the service clock, not here.
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          clockTolerance: Number.MAX_SAFE_INTEGER,
        });
        const { jti, sub, app, hw, exp } = payload;
        if (typeof jti !== 'string' || typeof sub !== 'string' || typeof app !== 'string' || typeof exp !== 'number') return null;
        if (hw !== null && typeof hw !== 'string') return null;
        return { sessionId: jti, applicationId: app, userId: sub, hardwareId: hw, expiresAt: exp * 1000 } satisfies SessionClaims;
      } catch {
        return null;
      }
    },
  };
}
