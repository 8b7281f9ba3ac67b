// A token is read together with the user it names (docs/performance-log.md, app_context): the user's
// row and licenses are fetched beside the session, before the session confirms the token. An
// attacker holding the token key (a leaked key, an insider) re-signs a member's token naming
// another member: the session row must still decide, and nothing of the other member is served.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveKey } from '../../src/adapters/crypto/secrets.js';
import { createSessionTokens } from '../../src/adapters/crypto/session-tokens.js';
import { bearer, call, expectError, member, token, type TestApplication } from '../support/integration.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let app: TestApplication;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false });
});
afterEach(() => t.close());

describe('token claims and the session row', () => {
  it('a token re-signed to name another member is refused, and the real token still serves its own member', async () => {
    const alice = await member(t, app, 'alice');
    const mallory = await member(t, app, 'mallory');
    const aliceToken = await token(t, app, { username: 'alice', password: alice.password });
    const malloryToken = await token(t, app, { username: 'mallory', password: mallory.password });
    const tokens = createSessionTokens(deriveKey(t.masterKey, 'session-tokens'));
    const malloryClaims = tokens.read(malloryToken);
    const aliceClaims = tokens.read(aliceToken);
    expect(malloryClaims).not.toBeNull();
    expect(aliceClaims).not.toBeNull();

    // Mallory's session, naming Alice as its user; and Alice's session, naming Mallory.
    for (const forged of [await tokens.issue({ ...malloryClaims!, userId: aliceClaims!.userId }), await tokens.issue({ ...aliceClaims!, userId: malloryClaims!.userId })]) {
      const res = await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(forged) });
      expectError(res, 401, 'INVALID_CREDENTIALS');
      expect(res.body).not.toContain('alice');
    }

    const own = await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(malloryToken) });
    expect(own.statusCode).toBe(200);
    expect(own.json<{ user: { username: string } }>().user.username).toBe('mallory');
  });
});
