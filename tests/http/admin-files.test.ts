import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decryptBuffer } from '../../src/file-format/encrypted-file.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { expectError } from '../support/integration.js';
import { multipartBody, processAll, upload } from '../support/files.js';

let t: TestApp;
let app: Awaited<ReturnType<typeof createApplication>>;
let auth: string;
beforeEach(async () => {
  t = await startTestApp();
  app = await createApplication(t, { device_auth: false, anonymous_access: true });
  auth = `Bearer ${app.credentials.admin_api_key}`;
});
afterEach(() => t.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const get = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url: `/api/admin${url}`, headers: { authorization: auth, ...headers } });
const post = (fields: Record<string, string>, content: Buffer | null, fileFirst = false) =>
  upload(t, 'POST', '/api/admin/files', auth, fields, content === null ? null : { content, filename: 'game-1.2.zip' }, fileFirst);

describe('POST /files', () => {
  it('201 with the File PENDING and NOT_STORED; processing makes it COMPLETED and STORED', async () => {
    const content = randomBytes(10_000);
    const res = await post({ name: 'game.zip', is_public: 'true', store_encrypted: 'false' }, content);
    expect(res.statusCode).toBe(201);
    const file = res.json();
    expect(file).toEqual({
      id: expect.any(String),
      application_id: app.id,
      name: 'game.zip',
      is_public: true,
      processing_status: 'PENDING',
      storage_status: 'NOT_STORED',
      mime_type: 'application/octet-stream',
      size_bytes: null,
      storage_path: null,
      original_filename: 'game-1.2.zip',
      store_encrypted: false,
      source: 'ADMIN_API',
      created_at: '2026-06-08T12:00:00.000Z',
      sha256: null,
      processing_error: null,
      updated_at: '2026-06-08T12:00:00.000Z',
    });
    // Not yet stored: 404 on download.
    expectError(await get(`/files/${file.id}/download`), 404, 'FILE_NOT_FOUND');
    expect(await processAll(t)).toBe(1);
    const done = (await get(`/files/${file.id}`)).json();
    expect(done).toMatchObject({ processing_status: 'COMPLETED', storage_status: 'STORED', size_bytes: 10_000, sha256: sha(content), storage_path: expect.any(String) });
    const download = await get(`/files/${file.id}/download`);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(content)).toBe(true);
    expect(download.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'content-length': '10000',
      etag: `"${sha(content)}"`,
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="game.zip"; filename*=UTF-8''game.zip`,
    });
  });

  it('accepts the file part before the fields', async () => {
    const res = await post({ name: 'first.bin', is_public: 'false', store_encrypted: 'false' }, Buffer.from('x'), true);
    expect(res.statusCode).toBe(201);
  });

  it('stores encrypted files in the documented format, served as stored', async () => {
    const content = randomBytes(200_000);
    const file = (await post({ name: 'secret.bin', is_public: 'false', store_encrypted: 'true' }, content)).json();
    await processAll(t);
    const done = (await get(`/files/${file.id}`)).json();
    expect(done).toMatchObject({ processing_status: 'COMPLETED', store_encrypted: true, size_bytes: 200_000, sha256: sha(content) });
    const download = await get(`/files/${file.id}/download`);
    expect(download.rawPayload.subarray(0, 4).toString()).toBe('GHFE');
    expect(download.headers.etag).toBe(`"${sha(download.rawPayload)}"`);
    const key = Buffer.from(app.credentials.files_encryption_key, 'base64');
    expect(decryptBuffer(key, download.rawPayload).equals(content)).toBe(true);
  });

  it('409 FILE_NAME_TAKEN for a name in use, leaving nothing staged behind', async () => {
    await post({ name: 'dup', is_public: 'true', store_encrypted: 'false' }, Buffer.from('a'));
    expectError(await post({ name: 'dup', is_public: 'true', store_encrypted: 'false' }, Buffer.from('b')), 409, 'FILE_NAME_TAKEN');
    await processAll(t);
    expect((await get('/files')).json()).toHaveLength(1);
  });

  it('422 for a missing file, missing fields, or booleans spelled otherwise', async () => {
    expectError(await post({ name: 'x', is_public: 'true', store_encrypted: 'false' }, null), 422, 'VALIDATION_FAILED');
    expectError(await post({ is_public: 'true', store_encrypted: 'false' }, Buffer.from('a')), 422, 'VALIDATION_FAILED');
    expectError(await post({ name: 'x', is_public: 'yes', store_encrypted: 'false' }, Buffer.from('a')), 422, 'VALIDATION_FAILED');
    expectError(await post({ name: 'x', is_public: 'true' }, Buffer.from('a')), 422, 'VALIDATION_FAILED');
    expect((await get('/files')).json()).toEqual([]);
  });

  it('415 for a JSON body; 401 INVALID_ADMIN_API_KEY with a wrong key', async () => {
    expectError(await t.inject({ method: 'POST', url: '/api/admin/files', headers: { authorization: auth }, payload: { name: 'x' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(
      await upload(t, 'POST', '/api/admin/files', 'Bearer gh_adm_nope', { name: 'x', is_public: 'true', store_encrypted: 'false' }, { content: Buffer.from('a') }),
      401,
      'INVALID_ADMIN_API_KEY',
    );
  });

  it('multipart is taken by the file routes only: a JSON route given a form answers 415 and creates nothing', async () => {
    const form = multipartBody([
      ['username', 'formed'],
      ['password', 'correct horse battery'],
    ]);
    const signUp = (body: { payload: Buffer | object; headers: Record<string, string> }) =>
      t.inject({ method: 'POST', url: '/api/integration/sign_up', headers: { ...app.headers, ...body.headers }, payload: body.payload });
    expectError(await signUp(form), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await signUp({ payload: { username: 'formed', password: 'correct horse battery' }, headers: {} })).statusCode).toBe(201);
    expect((await post({ name: 'after.zip', is_public: 'true', store_encrypted: 'false' }, Buffer.from('a'))).statusCode).toBe(201);
  });
});

describe('PUT /files/by-name/{name}', () => {
  it('201 when it creates, 200 with the same id when it replaces; previous contents served until the new ones are stored', async () => {
    const v1 = Buffer.from('version one');
    const v2 = Buffer.from('version two, longer');
    const put = (content: Buffer) => upload(t, 'PUT', '/api/admin/files/by-name/game%20build.zip', auth, { is_public: 'true', store_encrypted: 'false' }, { content });
    const created = await put(v1);
    expect(created.statusCode).toBe(201);
    expect(created.json().name).toBe('game build.zip');
    await processAll(t);
    const replaced = await put(v2);
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ id: created.json().id, processing_status: 'PENDING', storage_status: 'STORED', size_bytes: null });
    // Until processed, the previous contents are still what downloads get.
    expect((await get(`/files/${created.json().id}/download`)).rawPayload.equals(v1)).toBe(true);
    await processAll(t);
    expect((await get(`/files/${created.json().id}/download`)).rawPayload.equals(v2)).toBe(true);
    expect((await get(`/files/${created.json().id}`)).json()).toMatchObject({ processing_status: 'COMPLETED', size_bytes: v2.length });
  });

  it('422 when the form also names the file', async () => {
    const res = await upload(t, 'PUT', '/api/admin/files/by-name/a', auth, { name: 'b', is_public: 'true', store_encrypted: 'false' }, { content: Buffer.from('x') });
    expectError(res, 422, 'VALIDATION_FAILED');
  });
});

describe('PUT /files/{file_id}', () => {
  it('updates metadata only when no file is sent, and switches the source to the latest writer', async () => {
    const content = Buffer.from('abc');
    const file = (await post({ name: 'meta', is_public: 'true', store_encrypted: 'false' }, content)).json();
    await processAll(t);
    const res = await upload(t, 'PUT', `/api/admin/files/${file.id}`, auth, { name: 'renamed', is_public: 'false', store_encrypted: 'false' }, null);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: file.id, name: 'renamed', is_public: false, processing_status: 'COMPLETED', size_bytes: 3 });
    // The dashboard writes next: source follows.
    const console = await upload(t, 'PUT', `/api/console/applications/${app.id}/files/${file.id}`, `Bearer ${t.ownerToken}`, { name: 'renamed', is_public: 'true', store_encrypted: 'false' }, null);
    expect(console.json().source).toBe('DASHBOARD');
    const back = await upload(t, 'PUT', `/api/admin/files/${file.id}`, auth, { name: 'renamed', is_public: 'true', store_encrypted: 'false' }, { content: Buffer.from('new') });
    expect(back.json()).toMatchObject({ source: 'ADMIN_API', processing_status: 'PENDING' });
  });

  it('404 for an unknown file; 409 when another file has the name', async () => {
    await post({ name: 'one', is_public: 'true', store_encrypted: 'false' }, Buffer.from('1'));
    const two = (await post({ name: 'two', is_public: 'true', store_encrypted: 'false' }, Buffer.from('2'))).json();
    expectError(await upload(t, 'PUT', '/api/admin/files/00000000-0000-4000-8000-000000000000', auth, { name: 'x', is_public: 'true', store_encrypted: 'false' }, null), 404, 'FILE_NOT_FOUND');
    expectError(await upload(t, 'PUT', `/api/admin/files/${two.id}`, auth, { name: 'one', is_public: 'true', store_encrypted: 'false' }, null), 409, 'FILE_NAME_TAKEN');
  });
});

describe('GET, download, DELETE', () => {
  it('lists files oldest first; 404 for unknown ids and for another application’s file', async () => {
    const a = (await post({ name: 'a', is_public: 'true', store_encrypted: 'false' }, Buffer.from('a'))).json();
    t.clock.advance(1000);
    const b = (await post({ name: 'b', is_public: 'true', store_encrypted: 'false' }, Buffer.from('b'))).json();
    expect((await get('/files')).json().map((f: { id: string }) => f.id)).toEqual([a.id, b.id]);
    expectError(await get('/files/00000000-0000-4000-8000-000000000000'), 404, 'FILE_NOT_FOUND');
    const other = await createApplication(t, {});
    const otherAuth = `Bearer ${other.credentials.admin_api_key}`;
    expectError(await t.inject({ method: 'GET', url: `/api/admin/files/${a.id}`, headers: { authorization: otherAuth } }), 404, 'FILE_NOT_FOUND');
    expectError(await t.inject({ method: 'DELETE', url: `/api/admin/files/${a.id}`, headers: { authorization: otherAuth } }), 404, 'FILE_NOT_FOUND');
  });

  it('Range requests answer 206 with Content-Range; unsatisfiable ones 416; If-None-Match 304', async () => {
    const content = randomBytes(1000);
    const file = (await post({ name: 'r', is_public: 'true', store_encrypted: 'false' }, content)).json();
    await processAll(t);
    const part = await get(`/files/${file.id}/download`, { range: 'bytes=100-199' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(part.headers['content-length']).toBe('100');
    expect(part.rawPayload.equals(content.subarray(100, 200))).toBe(true);
    const tail = await get(`/files/${file.id}/download`, { range: 'bytes=-10' });
    expect(tail.rawPayload.equals(content.subarray(990))).toBe(true);
    const open = await get(`/files/${file.id}/download`, { range: 'bytes=995-' });
    expect(open.rawPayload.equals(content.subarray(995))).toBe(true);
    const beyond = await get(`/files/${file.id}/download`, { range: 'bytes=5000-' });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */1000');
    expect((await get(`/files/${file.id}/download`, { 'if-none-match': `"${sha(content)}"` })).statusCode).toBe(304);
  });

  it('a last position or suffix length of any length is clamped to the file (RFC 9110), not refused', async () => {
    const content = randomBytes(1000);
    const file = (await post({ name: 'clamped', is_public: 'true', store_encrypted: 'false' }, content)).json();
    await processAll(t);
    const whole = await get(`/files/${file.id}/download`, { range: `bytes=0-${'9'.repeat(17)}` });
    expect(whole.statusCode).toBe(206);
    expect(whole.headers['content-range']).toBe('bytes 0-999/1000');
    expect(whole.rawPayload.equals(content)).toBe(true);
    const rest = await get(`/files/${file.id}/download`, { range: `bytes=10-${'1'.repeat(40)}` });
    expect(rest.headers['content-range']).toBe('bytes 10-999/1000');
    expect(rest.rawPayload.equals(content.subarray(10))).toBe(true);
    const suffix = await get(`/files/${file.id}/download`, { range: `bytes=-${'5'.repeat(25)}` });
    expect(suffix.headers['content-range']).toBe('bytes 0-999/1000');
    // Leading zeros are digits like any others.
    const padded = await get(`/files/${file.id}/download`, { range: `bytes=${'0'.repeat(20)}10-${'0'.repeat(20)}19` });
    expect(padded.headers['content-range']).toBe('bytes 10-19/1000');
    // A first position past the end stays unsatisfiable, however it is written.
    expect((await get(`/files/${file.id}/download`, { range: `bytes=${'9'.repeat(17)}-` })).statusCode).toBe(416);
  });

  it('DELETE answers 204 and removes the row and the stored bytes', async () => {
    const file = (await post({ name: 'gone', is_public: 'true', store_encrypted: 'false' }, Buffer.from('bytes'))).json();
    await processAll(t);
    expect((await t.inject({ method: 'DELETE', url: `/api/admin/files/${file.id}`, headers: { authorization: auth } })).statusCode).toBe(204);
    expectError(await get(`/files/${file.id}`), 404, 'FILE_NOT_FOUND');
    expectError(await t.inject({ method: 'DELETE', url: `/api/admin/files/${file.id}`, headers: { authorization: auth } }), 404, 'FILE_NOT_FOUND');
    const left: string[] = [];
    for await (const blob of t.deps.blobs.list('')) left.push(blob.key);
    expect(left).toEqual([]);
  });
});

describe('size limit', () => {
  it('413 PAYLOAD_TOO_LARGE past the maximum: no row, no blob, no staging left', async () => {
    await t.close();
    t = await startTestApp({ maxUploadBytes: 1000 });
    app = await createApplication(t, { device_auth: false });
    auth = `Bearer ${app.credentials.admin_api_key}`;
    expectError(await post({ name: 'big', is_public: 'true', store_encrypted: 'false' }, randomBytes(1001)), 413, 'PAYLOAD_TOO_LARGE');
    expect((await post({ name: 'fits', is_public: 'true', store_encrypted: 'false' }, randomBytes(1000))).statusCode).toBe(201);
    const files = (await get('/files')).json();
    expect(files.map((f: { name: string }) => f.name)).toEqual(['fits']);
    const blobs: string[] = [];
    for await (const blob of t.deps.blobs.list('')) blobs.push(blob.key);
    expect(blobs).toHaveLength(1);
  });
});
