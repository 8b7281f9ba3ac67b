import { createHmac, randomBytes } from 'node:crypto';
import type { SessionClaims, TokenService } from '../../application/ports/token-service.js';
import { sameText } from './same-text.js';

const ISSUER = 'gatehouse';
/** Verified tokens remembered; a client sends its token with every request until it logs in again. */
const VERIFIED_MEMO_SIZE = 10_000;
/** The one protected header this service writes (and the tokens of earlier versions carry). */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Session tokens are HS256 JWTs whose signature turns away forged ones without a database read; the
 * session row decides liveness (docs/security.md, "Session tokens"). Synchronous node:crypto HMAC, as
 * WebCrypto's queues in libuv's pool behind argon2 (docs/performance-log.md, login). */
export function createSessionTokens(key: Uint8Array): TokenService {
  const mac = (signingInput: string) => createHmac('sha256', key).update(signingInput).digest('base64url');
  // A token's signature and claims depend on nothing but its bytes and this key, so a token
  // verified once is remembered (by its exact text; only tokens that verified get in). The
  // session row still decides, on every request, whether the token lives.
  const verified = new Map<string, SessionClaims>();
  const remember = (token: string, claims: SessionClaims) => {
    if (verified.size >= VERIFIED_MEMO_SIZE) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
  };
  const verify = (token: string): SessionClaims | null => {
    const [header, payload, signature, ...rest] = token.split('.');
    if (header !== HEADER || payload === undefined || signature === undefined || rest.length > 0) return null;
    if (!BASE64URL.test(payload)) return null;
    if (!sameText(signature, mac(`${header}.${payload}`))) return null;
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (typeof decoded !== 'object' || decoded === null) return null;
    // Expiry is judged against the session row with the service clock, not here.
    const { iss, jti, sub, app, hw, exp } = decoded as Record<string, unknown>;
    if (iss !== ISSUER || typeof jti !== 'string' || typeof sub !== 'string' || typeof app !== 'string' || typeof exp !== 'number') return null;
    if (hw !== null && typeof hw !== 'string') return null;
    return { sessionId: jti, applicationId: app, userId: sub, hardwareId: hw, expiresAt: exp * 1000 };
  };
  return {
    async issue(c) {
      const claims = {
        app: c.applicationId,
        hw: c.hardwareId,
        // `n`: 128 random bits, so every token holds CSPRNG entropy beyond its (UUID) session id.
        n: randomBytes(16).toString('base64url'),
        iss: ISSUER,
        jti: c.sessionId,
        sub: c.userId,
        exp: Math.floor(c.expiresAt / 1000),
      };
      const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      return `${signingInput}.${mac(signingInput)}`;
    },
    read(token) {
      if (token.length > 2048) return null;
      const known = verified.get(token);
      if (known !== undefined) return known;
      const claims = verify(token);
      if (claims !== null) remember(token, claims);
      return claims;
    },
  };
}
