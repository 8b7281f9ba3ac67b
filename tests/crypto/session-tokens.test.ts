// Session tokens: verification, the memo of verified tokens never vouching for anything else, and
// the tokens being standard HS256 JWTs both ways (jose, which signed them before, as the reference).
import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createSessionTokens } from '../../src/adapters/crypto/session-tokens.js';

const claims = { applicationId: 'app-1', userId: 'user-1', sessionId: 'session-1', hardwareId: 'hw-1', expiresAt: 1_900_000_000_000 };

describe('session tokens', () => {
  it('reads back the claims it issued, the first time and from memory', async () => {
    const tokens = createSessionTokens(randomBytes(32));
    const token = await tokens.issue(claims);
    expect(tokens.read(token)).toEqual(claims);
    expect(tokens.read(token)).toEqual(claims);
  });

  it('refuses every one-character change of a token it has verified and remembered', async () => {
    const tokens = createSessionTokens(randomBytes(32));
    const token = await tokens.issue(claims);
    expect(tokens.read(token)).not.toBeNull();
    for (let i = 0; i < token.length; i += 7) {
      const changed = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(tokens.read(changed)).toBeNull();
    }
    expect(tokens.read(`${token}x`)).toBeNull();
    expect(tokens.read(token.slice(0, -1))).toBeNull();
  });

  it('refuses a token of another key, even one another service remembers', async () => {
    const mine = createSessionTokens(randomBytes(32));
    const theirs = createSessionTokens(randomBytes(32));
    const token = await theirs.issue(claims);
    expect(theirs.read(token)).toEqual(claims);
    expect(mine.read(token)).toBeNull();
  });

  it('keeps verifying correctly past the memo bound', async () => {
    const tokens = createSessionTokens(randomBytes(32));
    const first = await tokens.issue(claims);
    expect(tokens.read(first)).toEqual(claims);
    for (let i = 0; i < 10_050; i++) expect(tokens.read(await tokens.issue({ ...claims, sessionId: `s-${i}` }))).not.toBeNull();
    // Evicted by now, and verified again from scratch.
    expect(tokens.read(first)).toEqual(claims);
  }, 60_000);

  it('is an HS256 JWT a standard verifier accepts, with the claims it names', async () => {
    const key = randomBytes(32);
    const token = await createSessionTokens(key).issue(claims);
    const { payload, protectedHeader } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: 'gatehouse' });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({ jti: 'session-1', sub: 'user-1', app: 'app-1', hw: 'hw-1', exp: 1_900_000_000 });
    expect(typeof payload['n']).toBe('string');
  });

  it('reads tokens signed by a standard signer as the earlier versions issued them', async () => {
    const key = randomBytes(32);
    const earlier = await new SignJWT({ app: 'app-1', hw: null, n: 'x' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('gatehouse')
      .setJti('session-1')
      .setSubject('user-1')
      .setExpirationTime(1_900_000_000)
      .sign(key);
    expect(createSessionTokens(key).read(earlier)).toEqual({ ...claims, hardwareId: null });
  });

  it('refuses tokens signed with its own key but another header, issuer or shape', async () => {
    const key = randomBytes(32);
    const tokens = createSessionTokens(key);
    const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
    const signed = (header: unknown, payload: unknown) => {
      const input = `${b64(header)}.${b64(payload)}`;
      return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
    };
    const good = { iss: 'gatehouse', jti: 's', sub: 'u', app: 'a', hw: null, exp: 1 };
    const standard = { alg: 'HS256', typ: 'JWT' };
    expect(tokens.read(signed(standard, good))).not.toBeNull();
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(good)}.`;
    for (const forged of [
      unsigned,
      signed({ alg: 'none', typ: 'JWT' }, good),
      signed({ alg: 'HS512', typ: 'JWT' }, good),
      signed({ alg: 'HS256' }, good),
      signed({ alg: 'HS256', typ: 'JWT', crit: ['b64'], b64: false }, good),
      signed(standard, { ...good, iss: 'someone-else' }),
      signed(standard, { ...good, exp: '1' }),
      signed(standard, { ...good, hw: 7 }),
      signed(standard, { ...good, jti: undefined }),
      signed(standard, [good]),
      signed(standard, 'not json'),
      `${signed(standard, good)}.extra`,
      `${signed(standard, good)}=`,
    ]) {
      expect(tokens.read(forged)).toBeNull();
    }
  });

  it('answers null, never throws, for any text', async () => {
    const tokens = createSessionTokens(randomBytes(32));
    const segment = fc.stringMatching(/^[A-Za-z0-9_\-=.+/]{0,40}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.tuple(segment, segment, segment).map((parts) => parts.join('.')),
        ),
        async (text) => {
          expect(tokens.read(text)).toBeNull();
        },
      ),
      { seed: 19, numRuns: 500 },
    );
  });
});
