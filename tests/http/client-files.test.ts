import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { bearer, call, expectError, member, token } from '../support/integration.js';
import { processAll, upload } from '../support/files.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

async function stored(app: Awaited<ReturnType<typeof createApplication>>, name: string, isPublic: boolean, content = randomBytes(100), encrypted = false) {
  const res = await upload(t, 'POST', '/api/admin/files', `Bearer ${app.credentials.admin_api_key}`, { name, is_public: String(isPublic), store_encrypted: String(encrypted) }, { content });
  if (res.statusCode !== 201) throw new Error(res.body);
  return { id: res.json().id as string, content };
}

describe('client downloads and the app context', () => {
  it('anonymous callers list and download public stored files only; members get private ones too', async () => {
    const app = await createApplication(t, { anonymous_access: true, device_auth: false });
    const pub = await stored(app, 'public.bin', true);
    const priv = await stored(app, 'private.bin', false, randomBytes(50), true);
    const pendingOnly = await stored(app, 'pending.bin', true);
    await processAll(t);
    await upload(t, 'POST', '/api/admin/files', `Bearer ${app.credentials.admin_api_key}`, { name: 'later.bin', is_public: 'true', store_encrypted: 'false' }, { content: Buffer.from('x') });

    const anon = (await call(t, app, 'GET', '/app_context')).json();
    expect(anon.application.files.map((f: { name: string }) => f.name).sort()).toEqual(['pending.bin', 'public.bin']);
    expect(anon.application.files.find((f: { name: string }) => f.name === 'public.bin')).toEqual({ id: pub.id, name: 'public.bin', mime_type: 'application/octet-stream', is_encrypted: false });
    const got = await call(t, app, 'GET', `/files/${pub.id}/download`);
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(pub.content)).toBe(true);
    // A private file asks an anonymous caller to log in (see the next test).
    expectError(await call(t, app, 'GET', `/files/${priv.id}/download`), 401, 'LOGIN_REQUIRED');

    const u = await member(t, app, 'alice');
    const tok = await token(t, app, { username: 'alice', password: u.password });
    const ctx = (await call(t, app, 'GET', '/app_context', undefined, { headers: bearer(tok) })).json();
    expect(ctx.application.files.find((f: { name: string }) => f.name === 'private.bin')).toMatchObject({ is_encrypted: true });
    const privGot = await call(t, app, 'GET', `/files/${priv.id}/download`, undefined, { headers: bearer(tok) });
    expect(privGot.statusCode).toBe(200);
    expect(privGot.rawPayload.subarray(0, 4).toString()).toBe('GHFE');
    expect(pendingOnly.id).toBeTruthy();
  });

  it('401 without a user where anonymous access is off; 403 for an expired membership; 404 for unknown files', async () => {
    const app = await createApplication(t, { device_auth: false, session_ttl_seconds: 86_400 });
    const file = await stored(app, 'f', true);
    await processAll(t);
    const res = await call(t, app, 'GET', `/files/${file.id}/download`);
    expect(expectError(res, 401, 'LOGIN_REQUIRED').message).toBe('Only logged in users are allowed to access');
    const u = await member(t, app, 'bob', undefined, 10);
    const tok = await token(t, app, { username: 'bob', password: u.password });
    expect((await call(t, app, 'GET', `/files/${file.id}/download`, undefined, { headers: bearer(tok) })).statusCode).toBe(200);
    expectError(await call(t, app, 'GET', '/files/00000000-0000-4000-8000-000000000000/download', undefined, { headers: bearer(tok) }), 404, 'FILE_NOT_FOUND');
    t.clock.advance(10 * 60_000);
    expectError(await call(t, app, 'GET', `/files/${file.id}/download`, undefined, { headers: bearer(tok) }), 403, 'MEMBERSHIP_INACTIVE');
    expectError(await call(t, app, 'GET', `/files/${file.id}/download`, undefined, { headers: { 'x-api-key': 'nope', 'x-api-secret': 'nope' } }), 401, 'INVALID_API_CREDENTIALS');
  });

  it('an anonymous caller asking for a private file is told to log in; unknown and foreign ids stay 404', async () => {
    const app = await createApplication(t, { anonymous_access: true, device_auth: false });
    const other = await createApplication(t, { anonymous_access: true, device_auth: false });
    const priv = await stored(app, 'private.bin', false);
    const pendingPriv = await stored(app, 'pending-private.bin', false);
    const foreignPriv = await stored(other, 'foreign-private.bin', false);
    const foreignPub = await stored(other, 'foreign-public.bin', true);
    await t.processor.drain();
    await upload(
      t,
      'PUT',
      `/api/admin/files/${pendingPriv.id}`,
      `Bearer ${app.credentials.admin_api_key}`,
      { name: 'pending-private.bin', is_public: 'false', store_encrypted: 'false' },
      { content: Buffer.from('y') },
    );

    const res = expectError(await call(t, app, 'GET', `/files/${priv.id}/download`), 401, 'LOGIN_REQUIRED');
    expect(res.message).toBe('Only logged in users are allowed to access');
    // A private file whose replacement is still pending keeps serving, so it too asks for a login.
    expectError(await call(t, app, 'GET', `/files/${pendingPriv.id}/download`), 401, 'LOGIN_REQUIRED');
    // Ids of another application, private or public, and ids that do not exist: 404 as before.
    expectError(await call(t, app, 'GET', `/files/${foreignPriv.id}/download`), 404, 'FILE_NOT_FOUND');
    expectError(await call(t, app, 'GET', `/files/${foreignPub.id}/download`), 404, 'FILE_NOT_FOUND');
    expectError(await call(t, app, 'GET', '/files/00000000-0000-4000-8000-000000000000/download'), 404, 'FILE_NOT_FOUND');

    // Logged in, the same private file downloads.
    const u = await member(t, app, 'carol');
    const tok = await token(t, app, { username: 'carol', password: u.password });
    expect((await call(t, app, 'GET', `/files/${priv.id}/download`, undefined, { headers: bearer(tok) })).statusCode).toBe(200);
  });

  it('Range works on client downloads too', async () => {
    const app = await createApplication(t, { anonymous_access: true });
    const file = await stored(app, 'r', true, randomBytes(300));
    await processAll(t);
    const part = await call(t, app, 'GET', `/files/${file.id}/download`, undefined, { headers: { range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(file.content.subarray(0, 10))).toBe(true);
  });
});
