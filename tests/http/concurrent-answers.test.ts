// Requests answered together: each answer is its own (body, signature, refusal), and what a hook
// found out about one request (request-state.ts) never reaches another's route or answer.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, expectError, member, token } from '../support/integration.js';
import { fieldsOf, newNonce, verifies } from '../support/response-verifier.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const NAMES = ['alice', 'bob', 'carol'];

/** An application and a logged-in member of it for each name, with their tokens. */
async function membersWithTokens(settings: Record<string, unknown> = {}) {
  const app = await createApplication(t, { device_auth: false, ...settings });
  const tokens: string[] = [];
  for (const name of NAMES) {
    const user = await member(t, app, name);
    tokens.push(await token(t, app, { username: name, password: user.password }));
  }
  return { app, tokens };
}

describe('answers given together', () => {
  it('each app_context answer of one turn names its own member', async () => {
    const { app, tokens } = await membersWithTokens();
    const answers = await Promise.all(tokens.map((tok) => call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) })));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.json<{ user: { username: string } }>().user.username)).toEqual(NAMES);
  });

  it('each signed answer of one turn verifies for its own request and nonce, and for no other', async () => {
    const { app, tokens } = await membersWithTokens();
    const publicKey = (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_public_key as string;
    const url = '/api/integration/app_context';
    const sent = tokens.map(() => ({ method: 'GET', url, nonce: newNonce() }));
    const answers = await Promise.all(tokens.map((tok, i) => t.inject({ method: 'GET', url, headers: { ...app.headers, ...bearer(tok), 'x-nonce': sent[i]!.nonce } })));
    answers.forEach((res, i) => {
      expect(res.statusCode).toBe(200);
      expect(verifies(res, fieldsOf(res, sent[i]!, app.id), publicKey)).toBe(true);
      expect(verifies(res, fieldsOf(res, sent[(i + 1) % sent.length]!, app.id), publicKey)).toBe(false);
    });
  });

  it('a refusal among answers of one turn is only its own request’s', async () => {
    const { app, tokens } = await membersWithTokens();
    const presented = [tokens[0]!, 'not-a-session-token', tokens[2]!];
    const answers = await Promise.all(presented.map((tok) => call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) })));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 200]);
    expectError(answers[1]!, 401, 'INVALID_CREDENTIALS');
    expect(answers[0]!.json<{ user: { username: string } }>().user.username).toBe('alice');
    expect(answers[2]!.json<{ user: { username: string } }>().user.username).toBe('carol');
  });

  it('answers requests of later turns one after another', async () => {
    const { app, tokens } = await membersWithTokens();
    for (const [i, tok] of tokens.entries()) {
      const res = await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) });
      expect(res.json<{ user: { username: string } }>().user.username).toBe(NAMES[i]);
    }
  });

  it('admin requests of two applications in one turn each act on their own key’s application', async () => {
    const first = await membersWithTokens();
    const second = await createApplication(t, { device_auth: false });
    await member(t, second, 'alice');
    const lookups = [first.app, second, first.app, second].map((app) =>
      t.inject({ method: 'GET', url: '/api/admin/user/alice', headers: { authorization: `Bearer ${app.credentials.admin_api_key}` } }),
    );
    const answers = await Promise.all(lookups);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    const ids = answers.map((a) => a.json<{ id: string }>().id);
    expect(ids[0]).toBe(ids[2]);
    expect(ids[1]).toBe(ids[3]);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
