// Names are metadata only: proven on the embedded backend, where a name could reach the disk.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { call, expectError } from '../support/integration.js';
import { processAll, upload } from '../support/files.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

/** Every path under `root`, relative, for comparing trees. */
function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      out.push(relative(root, path));
      if (statSync(path).isDirectory()) walk(path);
    }
  };
  walk(root);
  return out.sort();
}

describe('malicious names', () => {
  const names = ['../../x', '..\\..\\windows\\system32', 'a\r\nSet-Cookie: x=1', 'x'.repeat(4096), 'invoice\u202Efdp.exe', '/etc/passwd', '%2e%2e%2f', 'CON'];

  it('are stored as metadata only: nothing is written outside the data folder, downloads name them safely', async () => {
    // The data folder gets a private parent two folders below a private root: a write escaping it
    // would land in one of them, never in the temp folder other test files share.
    const root = mkdtempSync(join(tmpdir(), 'gatehouse-names-'));
    const parent = join(root, 'above', 'parent');
    mkdirSync(parent, { recursive: true });
    await t.close();
    t = await startTestApp({ parentDir: parent });
    const app = await createApplication(t, { anonymous_access: true });
    const outside = tree(parent).filter((p) => !p.startsWith(relative(parent, t.dataDir)));
    expect(outside).toEqual([]);
    const ids: string[] = [];
    for (const name of names) {
      const res = await upload(
        t,
        'POST',
        '/api/admin/files',
        `Bearer ${app.credentials.admin_api_key}`,
        { name, is_public: 'true', store_encrypted: 'false' },
        { content: Buffer.from(name), filename: name },
      );
      expect(res.statusCode, name.slice(0, 30)).toBe(201);
      expect(res.json().name).toBe(name);
      ids.push(res.json().id);
    }
    await processAll(t);
    for (const [i, id] of ids.entries()) {
      const got = await call(t, app, 'GET', `/files/${id}/download`);
      expect(got.statusCode).toBe(200);
      const disposition = got.headers['content-disposition'] as string;
      // One header line, no CR/LF or bidi override, no path separators in the plain name.
      expect(disposition).not.toMatch(/[\r\n\u202E]/);
      expect(/filename="([^"]*)"/.exec(disposition)?.[1]).not.toMatch(/[/\\]/);
      expect(got.rawPayload.toString()).toBe(names[i]);
    }
    // The by-name route takes them too, as metadata.
    const put = await upload(
      t,
      'PUT',
      `/api/admin/files/by-name/${encodeURIComponent('../../x')}`,
      `Bearer ${app.credentials.admin_api_key}`,
      { is_public: 'true', store_encrypted: 'false' },
      { content: Buffer.from('v2') },
    );
    expect(put.statusCode).toBe(200);
    // Nothing appeared beside the data folder or above it, and inside it only server-made keys.
    expect(tree(root).filter((p) => !p.startsWith(relative(root, t.dataDir)))).toEqual(['above', 'above/parent']);
    for (const path of tree(t.blobRoot)) expect(path).toMatch(/^(\.tmp|files|staging)(\/[a-z0-9_-]+)*$/);
    await t.close();
    rmSync(root, { recursive: true, force: true });
    t = await startTestApp();
  });

  it('NUL and names over 4096 characters are refused with 422', async () => {
    const app = await createApplication(t, { anonymous_access: true });
    for (const name of ['a\u0000b', 'x'.repeat(4097)]) {
      const res = await upload(t, 'POST', '/api/admin/files', `Bearer ${app.credentials.admin_api_key}`, { name, is_public: 'true', store_encrypted: 'false' }, { content: Buffer.from('x') });
      expectError(res, 422, 'VALIDATION_FAILED');
    }
  });
});
