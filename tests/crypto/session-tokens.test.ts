// Session tokens: verification, and the memo of verified tokens never vouching for anything else.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSessionTokens } from '../../src/adapters/crypto/session-tokens.js';

const claims = { applicationId: 'app-1', userId: 'user-1', sessionId: 'session-1', hardwareId: 'hw-1', expiresAt: 1_900_000_000_000 };

describe('session tokens', () => {
  it('reads back the claims it issued, the first time and from memory', async () => {
    const tokens = createSessionTokens(randomBytes(32));
    const token = await tokens.issue(claims);
    expect(await tokens.read(token)).toEqual(claims);
    expect(await tokens.read(token)).toEqual(claims);
  });

  it('refuses every one-character change of a token it has verified and remembered', async () => {
    const tokens = createSessionTokens(randomBytes(32));
    const token = await tokens.issue(claims);
    expect(await tokens.read(token)).not.toBeNull();
    for (let i = 0; i < token.length; i += 7) {
      const changed = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(await tokens.read(changed)).toBeNull();
    }
    expect(await tokens.read(`${token}x`)).toBeNull();
    expect(await tokens.read(token.slice(0, -1))).toBeNull();
  });

  it('refuses a token of another key, even one another service remembers', async () => {
    const mine = createSessionTokens(randomBytes(32));
    const theirs = createSessionTokens(randomBytes(32));
    const token = await theirs.issue(claims);
    expect(await theirs.read(token)).toEqual(claims);
    expect(await mine.read(token)).toBeNull();
  });

  it('keeps verifying correctly past the memo bound', async () => {
    const tokens = createSessionTokens(randomBytes(32));
    const first = await tokens.issue(claims);
    expect(await tokens.read(first)).toEqual(claims);
    for (let i = 0; i < 10_050; i++) expect(await tokens.read(await tokens.issue({ ...claims, sessionId: `s-${i}` }))).not.toBeNull();
    // Evicted by now, and verified again from scratch.
    expect(await tokens.read(first)).toEqual(claims);
  }, 60_000);
});
