// `gatehouse backup` and `gatehouse restore` (issue 13): a backup taken while the server writes
// (sign-ups, licenses, uploads and deletions going on) restores into a new data folder with every
// row and file committed before the backup started, and every file row it holds has its contents.
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseServerEnv, killServer, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startLiveServer, type AppCredentials, type LiveServer } from '../client/live-server.js';
import { runGatehouse } from './run-cli.js';

let live: LiveServer;
let app: AppCredentials;
let restored: ServerProcess | null = null;
const folders: string[] = [];

/** Deterministic bytes: SHA-256 in counter mode over a seed. */
function seededBytes(seed: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0, at = 0; at < size; i++, at += 32) createHash('sha256').update(`${seed}:${i}`).digest().copy(out, at);
  return out;
}
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  live = await startLiveServer('gatehouse-backup');
  app = await live.createApp({ name: 'Backup test', device_auth: false });
}, 180_000);

afterAll(async () => {
  await killServer(restored);
  await live?.stop();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

const integration = () => ({ 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, 'content-type': 'application/json' });
const admin = () => ({ authorization: `Bearer ${app.admin_api_key}` });

async function signUp(base: string, username: string): Promise<number> {
  const res = await fetch(`${base}/api/integration/sign_up`, { method: 'POST', headers: integration(), body: JSON.stringify({ username, password: `${username}-password` }) });
  await res.arrayBuffer();
  return res.status;
}

async function upload(base: string, name: string, content: Buffer): Promise<string> {
  const form = new FormData();
  form.append('name', name);
  form.append('is_public', 'false');
  form.append('store_encrypted', 'false');
  form.append('file', new Blob([content]), name);
  const res = await fetch(`${base}/api/admin/files`, { method: 'POST', headers: admin(), body: form });
  const body = (await res.json()) as { id: string };
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

describe('backup and restore', () => {
  it('a backup taken under load restores every row and file committed before it started', async () => {
    const base = live.base;
    // Committed before the backup: users, licenses, stored files.
    const users = Array.from({ length: 8 }, (_, i) => `before-${i}`);
    for (const u of users) expect(await signUp(base, u)).toBe(201);
    const codes = await live.licenses(app.id, 20, 60);
    const files: Array<{ id: string; sha256: string }> = [];
    for (let i = 0; i < 5; i++) {
      const content = seededBytes(`before-${i}`, 200_000 + i * 50_000);
      const file = await live.uploadAndWait(app, `before-${i}.bin`, new Blob([content]), { isPublic: false, encrypted: false });
      expect(file.sha256).toBe(sha(content));
      files.push({ id: file.id, sha256: file.sha256 });
    }

    // The load: three writers until the backup is done; uploads, deletions, sign-ups, licenses.
    let stop = false;
    let writes = 0;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        expect(await signUp(base, `load-${w}-${n}`)).toBe(201);
        const id = await upload(base, `load-${w}-${n}.bin`, seededBytes(`load-${w}-${n}`, 64_000 + n * 1000));
        if (n % 2 === 1) {
          const del = await fetch(`${base}/api/admin/files/${id}`, { method: 'DELETE', headers: admin() });
          expect(del.status).toBe(204);
        }
        await live.licenses(app.id, 5, 60);
        writes += 1;
      }
    };
    const writers = [0, 1, 2].map(writer);
    const started = Date.now();
    while (writes < 3) {
      if (Date.now() - started > 60_000) throw new Error('the load never got going');
      await new Promise((r) => setTimeout(r, 20));
    }
    const backupDir = mkdtempSync(join(tmpdir(), 'gatehouse-backup-target-'));
    folders.push(backupDir);
    const file = join(backupDir, 'gatehouse-backup.db');
    const writesAtStart = writes;
    const run = await runGatehouse(live.build.outDir, ['backup', file], { GATEHOUSE_DATA_DIR: live.dataDir, LOG_LEVEL: 'warn' });
    const writesAtEnd = writes;
    stop = true;
    await Promise.all(writers);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ database: file, blobs: `${file}.blobs` });
    expect(run.stderr).toContain('the master key is not in it');
    // Every blob a copied row refers to was pinned at the moment of the copy (none reported missing).
    expect(run.stderr).not.toContain('missing');
    console.log(`backup under load: ${writesAtStart} writer rounds before it, ${writesAtEnd - writesAtStart} during it`);
    expect(existsSync(`${file}.partial`)).toBe(false);

    // A running server's data cannot be restored over.
    const busy = await runGatehouse(live.build.outDir, ['restore', file], { GATEHOUSE_DATA_DIR: live.dataDir, LOG_LEVEL: 'warn' });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toBe(`gatehouse: ${join(live.dataDir, 'gatehouse.db')} is in use: stop the server first\n`);

    // Restore into a new data folder that has the installation's master key, and start on it.
    const target = mkdtempSync(join(tmpdir(), 'gatehouse-restored-'));
    folders.push(target);
    const env = { GATEHOUSE_DATA_DIR: target, LOG_LEVEL: 'warn' };
    const keyless = await runGatehouse(live.build.outDir, ['restore', file], env);
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toMatch(/^gatehouse: no master key: put the backed-up installation's master\.key in /);
    copyFileSync(join(live.dataDir, 'master.key'), join(target, 'master.key'));
    const restore = await runGatehouse(live.build.outDir, ['restore', file], env);
    expect(restore.code, restore.stderr).toBe(0);
    expect(JSON.parse(restore.stdout)).toMatchObject({ restored: file, data_dir: target, replaced: null });

    restored = await startServerProcess(live.build.outDir, baseServerEnv(env));
    const rBase = restored.base;
    const consoleGet = async (path: string) => {
      const res = await fetch(`${rBase}/api/console${path}`, { headers: { authorization: live.ownerAuth } });
      expect(res.status).toBe(200);
      return res.json();
    };
    // The owner's console token, the application and its credentials came back.
    const licenses = (await consoleGet(`/applications/${app.id}/licenses`)) as Array<{ code: string }>;
    const restoredCodes = new Set(licenses.map((l) => l.code));
    for (const code of codes) expect(restoredCodes.has(code), code).toBe(true);
    for (const u of users) {
      const res = await fetch(`${rBase}/api/admin/user/${u}`, { headers: admin() });
      expect(res.status, u).toBe(200);
    }
    for (const f of files) {
      const res = await fetch(`${rBase}/api/admin/files/${f.id}/download`, { headers: admin() });
      expect(res.status).toBe(200);
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(f.sha256);
    }
    // Rows written during the backup are whole too: every stored file in it has its contents.
    const all = (await (await fetch(`${rBase}/api/admin/files`, { headers: admin() })).json()) as Array<{ id: string; processing_status: string; sha256: string | null }>;
    for (const f of all.filter((x) => x.processing_status === 'COMPLETED')) {
      const res = await fetch(`${rBase}/api/admin/files/${f.id}/download`, { headers: admin() });
      expect(res.status, f.id).toBe(200);
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(f.sha256);
    }
    // Files still PENDING in the backup are processed after the restore: their staged uploads came along.
    const pending = all.filter((x) => x.processing_status === 'PENDING').map((x) => x.id);
    console.log(`restored with ${pending.length} files still PENDING`);
    for (const id of pending) {
      for (let status = 'PENDING'; status === 'PENDING';) {
        const res = await fetch(`${rBase}/api/admin/files/${id}`, { headers: admin() });
        status = ((await res.json()) as { processing_status: string }).processing_status;
        expect(status).not.toBe('FAILED');
        if (status === 'PENDING') await new Promise((r) => setTimeout(r, 100));
      }
    }
  }, 240_000);

  it('restore over existing data moves what was there aside, and refuses a backup made under another master key', async () => {
    await killServer(restored);
    restored = null;
    const target = folders[1] as string;
    const file = join(folders[0] as string, 'gatehouse-backup.db');
    const again = await runGatehouse(live.build.outDir, ['restore', file], { GATEHOUSE_DATA_DIR: target, LOG_LEVEL: 'warn' });
    expect(again.code, again.stderr).toBe(0);
    const aside = (JSON.parse(again.stdout) as { replaced: string }).replaced;
    expect(readdirSync(aside).sort()).toEqual(['blobs', 'gatehouse.db']);

    const other = mkdtempSync(join(tmpdir(), 'gatehouse-restored-other-'));
    folders.push(other);
    const wrongKey = await runGatehouse(live.build.outDir, ['restore', file], { GATEHOUSE_DATA_DIR: other, LOG_LEVEL: 'warn', GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^gatehouse: GATEHOUSE_MASTER_KEY: this is not the master key/);
    expect(readdirSync(other)).toEqual([]);
  }, 60_000);

  it('a backup into a folder that does not exist yet creates it, and backup and restored database are owner-only', async () => {
    const mode = (path: string) => statSync(path).mode & 0o777;
    const parent = mkdtempSync(join(tmpdir(), 'gatehouse-backup-new-'));
    folders.push(parent);
    const file = join(parent, 'nightly', '2026-11-28', 'gatehouse.db');
    const run = await runGatehouse(live.build.outDir, ['backup', file], { GATEHOUSE_DATA_DIR: live.dataDir, LOG_LEVEL: 'warn' });
    expect(run.code, run.stderr).toBe(0);
    expect(mode(file)).toBe(0o600);
    expect(mode(`${file}.blobs`)).toBe(0o700);
    expect(mode(join(parent, 'nightly'))).toBe(0o700);

    // Restored from a backup someone made readable (an older one, or a copy): the database is 0600 again.
    const target = join(parent, 'restored-data');
    const env = { GATEHOUSE_DATA_DIR: target, LOG_LEVEL: 'warn', GATEHOUSE_MASTER_KEY: readMasterKey() };
    chmodSync(file, 0o644);
    const restore = await runGatehouse(live.build.outDir, ['restore', file], env);
    expect(restore.code, restore.stderr).toBe(0);
    expect(mode(join(target, 'gatehouse.db'))).toBe(0o600);
    expect(mode(target)).toBe(0o700);
  }, 60_000);
});

/** The live installation's master key, as GATEHOUSE_MASTER_KEY takes it. */
function readMasterKey(): string {
  return readFileSync(join(live.dataDir, 'master.key'), 'utf8').trim();
}
