// The signing keys and settings of an application in the console API (docs/api.md, Response signing),
// and the keys applications from before response signing are given at start.
import { createPublicKey } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/application/records.js';
import { issueMissingSigningKeys } from '../../src/application/signing-keys.js';
import { defaultSettings } from '../../src/domain/application-settings.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { fieldsOf, keyIdOf, newNonce, verifies } from '../support/response-verifier.js';
import { otherOwnerToken } from './console-helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const shown = async (id: string) => (await consoleRequest(t, 'GET', `/applications/${id}`)).json<Record<string, unknown>>();

describe('keys and settings of a new application', () => {
  it('has an Ed25519 response signing key shown by its public half and id, and a request signing key shown once', async () => {
    const res = await consoleRequest(t, 'POST', '/applications', { name: 'Signed' });
    expect(res.statusCode).toBe(201);
    const { application, credentials } = res.json();
    expect(application).toMatchObject({ response_signing: true, request_signing: false, signature_window_seconds: 10, response_signing_previous_key_id: null });
    const publicKey = Buffer.from(application.response_signing_public_key, 'base64');
    expect(publicKey).toHaveLength(32);
    expect(publicKey.toString('base64')).toBe(application.response_signing_public_key);
    // node:crypto takes it as an Ed25519 public key.
    expect(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') }, format: 'jwk' }).asymmetricKeyType).toBe('ed25519');
    expect(application.response_signing_key_id).toBe(keyIdOf(application.response_signing_public_key));
    expect(application.response_signing_key_id).toMatch(/^[0-9a-f]{16}$/);

    expect(Object.keys(credentials).sort()).toEqual(['admin_api_key', 'api_key', 'api_secret', 'files_encryption_key', 'request_signing_key']);
    expect(Buffer.from(credentials.request_signing_key, 'base64')).toHaveLength(32);
    const stored = await t.store.findApplication(application.id);
    expect(stored?.signing.requestSealed).not.toContain(credentials.request_signing_key);
    expect(t.deps.secrets.open(stored?.signing.requestSealed ?? '')).toBe(credentials.request_signing_key);
    expect(JSON.stringify(await shown(application.id))).not.toContain(credentials.request_signing_key);
    expect(await shown(application.id)).toEqual(application);
  });

  it('takes the signing settings at creation and in a patch, within their bounds', async () => {
    const res = await consoleRequest(t, 'POST', '/applications', { name: 'x', response_signing: false, request_signing: true, signature_window_seconds: 60 });
    expect(res.json().application).toMatchObject({ response_signing: false, request_signing: true, signature_window_seconds: 60 });
    const id = res.json().application.id as string;
    const patched = await consoleRequest(t, 'PATCH', `/applications/${id}`, { response_signing: true, signature_window_seconds: 300 });
    expect(patched.json()).toMatchObject({ response_signing: true, request_signing: true, signature_window_seconds: 300 });
    for (const [field, value] of [
      ['signature_window_seconds', 4],
      ['signature_window_seconds', 301],
      ['signature_window_seconds', 10.5],
      ['response_signing', 'yes'],
      ['request_signing', null],
    ] as const) {
      const bad = await consoleRequest(t, 'PATCH', `/applications/${id}`, { [field]: value });
      expect(bad.statusCode, `${field}=${value}`).toBe(422);
      expect(bad.json().errors[0].field).toBe(field);
    }
    expect(await shown(id)).toMatchObject({ response_signing: true, request_signing: true, signature_window_seconds: 300 });
  });
});

describe('rotating the keys', () => {
  it('the response signing key: the new one is answered, the old one shown as previous until removed', async () => {
    const app = await createApplication(t);
    const before = await shown(app.id);
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/response_signing_key/rotate`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['response_signing_key_id', 'response_signing_public_key']);
    expect(body.response_signing_key_id).toBe(keyIdOf(body.response_signing_public_key));
    expect(body.response_signing_public_key).not.toBe(before['response_signing_public_key']);
    expect(await shown(app.id)).toMatchObject({ ...body, response_signing_previous_key_id: before['response_signing_key_id'] });

    const removed = await consoleRequest(t, 'DELETE', `/applications/${app.id}/credentials/response_signing_key/previous`);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect(await shown(app.id)).toMatchObject({ ...body, response_signing_previous_key_id: null });
    // Nothing left to remove: the same answer.
    expect((await consoleRequest(t, 'DELETE', `/applications/${app.id}/credentials/response_signing_key/previous`)).statusCode).toBe(204);
  });

  it('the request signing key: the new one is answered once; the old one is kept with when it was replaced', async () => {
    const app = await createApplication(t);
    t.clock.advance(60_000);
    const res = await consoleRequest(t, 'POST', `/applications/${app.id}/credentials/request_signing_key/rotate`);
    expect(res.statusCode).toBe(200);
    const fresh = res.json().request_signing_key as string;
    expect(Object.keys(res.json())).toEqual(['request_signing_key']);
    expect(Buffer.from(fresh, 'base64')).toHaveLength(32);
    expect(fresh).not.toBe(app.credentials.request_signing_key);
    const signing = (await t.store.findApplication(app.id))?.signing;
    expect(t.deps.secrets.open(signing?.requestSealed ?? '')).toBe(fresh);
    expect(signing?.previousRequest?.replacedAt).toBe(t.clock.now());
    expect(t.deps.secrets.open(signing?.previousRequest?.sealed ?? '')).toBe(app.credentials.request_signing_key);
  });

  it('rotation routes take no body, and answer 404 for another owner’s application', async () => {
    const app = await createApplication(t);
    for (const url of [`/applications/${app.id}/credentials/response_signing_key/rotate`, `/applications/${app.id}/credentials/request_signing_key/rotate`]) {
      const res = await consoleRequest(t, 'POST', url, { force: true });
      expect(res.statusCode).toBe(422);
    }
    const theirs = await createApplication(t, {}, await otherOwnerToken(t));
    const attempts: Array<['POST' | 'DELETE', string]> = [
      ['POST', `/applications/${theirs.id}/credentials/response_signing_key/rotate`],
      ['DELETE', `/applications/${theirs.id}/credentials/response_signing_key/previous`],
      ['POST', `/applications/${theirs.id}/credentials/request_signing_key/rotate`],
    ];
    for (const [method, url] of attempts) {
      const res = await consoleRequest(t, method, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error_code).toBe('APPLICATION_NOT_FOUND');
    }
    const theirsStored = await t.store.findApplication(theirs.id);
    expect(theirsStored?.signing.previousResponse).toBeNull();
    expect(theirsStored?.signing.previousRequest).toBeNull();
  });
});

describe('applications from before response signing', () => {
  /** An application as the version before response signing stored it: no signing keys. */
  async function keylessApplication(settings: Partial<ApplicationRecord['settings']> = {}) {
    const owner = await t.store.findOwnerByEmail('owner@example.com');
    if (owner === null) throw new Error('no owner');
    const apiKey = t.deps.secrets.issue('gh_pk_');
    const apiSecret = t.deps.secrets.issue('gh_sk_');
    const app: ApplicationRecord = {
      id: t.deps.ids.uuid(),
      ownerId: owner.id,
      name: 'Old',
      settings: { ...defaultSettings, ...settings },
      apiKey,
      apiSecretDigest: t.deps.secrets.digest(apiSecret),
      adminApiKeyDigest: t.deps.secrets.digest(t.deps.secrets.issue('gh_adm_')),
      filesKeySealed: t.deps.secrets.seal('files-key'),
      signing: { response: null, previousResponse: null, requestSealed: null, previousRequest: null },
      contentVersion: 0,
      bansVersion: 0,
      createdAt: t.clock.now(),
    };
    await t.store.createApplication(app);
    return { id: app.id, headers: { 'x-api-key': apiKey, 'x-api-secret': apiSecret } };
  }

  it('get their keys at start, once, however many instances start together', async () => {
    const old = await keylessApplication();
    const keyed = await createApplication(t);
    const keyedBefore = await t.store.findApplication(keyed.id);
    expect(await shown(old.id)).toMatchObject({ response_signing_public_key: null, response_signing_key_id: null });
    await Promise.all([issueMissingSigningKeys(t.deps), issueMissingSigningKeys(t.deps), issueMissingSigningKeys(t.deps)]);
    const stored = await t.store.findApplication(old.id);
    expect(stored?.signing.response).not.toBeNull();
    expect(Buffer.from(t.deps.secrets.open(stored?.signing.requestSealed ?? ''), 'base64')).toHaveLength(32);
    expect(await shown(old.id)).toMatchObject({ response_signing_public_key: stored?.signing.response?.publicKey, response_signing_previous_key_id: null });
    expect(await issueMissingSigningKeys(t.deps)).toBe(0);
    expect(await t.store.findApplication(keyed.id)).toEqual(keyedBefore);
  });

  it('one made by an older instance during an upgrade is given them by its first answer, which they sign', async () => {
    const old = await keylessApplication({ anonymousAccess: true });
    const nonce = newNonce();
    const url = '/api/integration/app_context';
    const res = await t.inject({ method: 'GET', url, headers: { ...old.headers, 'x-nonce': nonce } });
    expect(res.statusCode).toBe(200);
    const publicKey = (await shown(old.id))['response_signing_public_key'] as string;
    expect(verifies(res, fieldsOf(res, { method: 'GET', url, nonce }, old.id), publicKey)).toBe(true);
  });
});
