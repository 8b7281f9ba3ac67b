// A real Gatehouse for the SDK, CLI and README tests: the compiled server in a child process on
// a fresh SQLite data folder, its first owner made with the compiled CLI, and the console and
// admin calls the tests need to arrange things. The compiled build is also what the package
// exports point at, so the tests load `gatehouse/client` from it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseServerEnv, buildServer, killServer, repoRoot, runCli, startServerProcess, type Build, type ServerProcess } from '../support/server-process.js';

export type ClientModule = typeof import('../../src/client/gatehouse-client.js');

export interface AppCredentials {
  id: string;
  api_key: string;
  api_secret: string;
  admin_api_key: string;
  files_encryption_key: string;
  request_signing_key: string;
}

export interface LiveServer {
  build: Build;
  server: ServerProcess;
  base: string;
  dataDir: string;
  /** `Bearer <console token>` of the owner. */
  ownerAuth: string;
  /** Console API call as the owner; the parsed JSON (null for 204). */
  console(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  createApp(settings?: Record<string, unknown>): Promise<AppCredentials>;
  /** Licenses of `minutes` (null: lifetime); their codes. */
  licenses(appId: string, count: number, minutes: number | null): Promise<string[]>;
  /** Uploads through the admin API and waits for COMPLETED; the File. */
  uploadAndWait(app: AppCredentials, name: string, content: Blob, options: { isPublic: boolean; encrypted: boolean }): Promise<{ id: string; storage_path: string; sha256: string }>;
  /** The module `gatehouse/client` resolves to, loaded from this build through package.json's exports. */
  loadClient(): Promise<ClientModule>;
  stop(): Promise<void>;
}

/** The path package.json's exports map gives `subpath` (e.g. './client'), inside a build's outDir. */
export function exportedFile(outDir: string, subpath: string): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> };
  const target = pkg.exports[subpath]?.default;
  if (target === undefined || !target.startsWith('./dist/')) throw new Error(`package.json exports no ${subpath} under ./dist/`);
  return join(outDir, target.slice('./dist/'.length));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startLiveServer(name: string): Promise<LiveServer> {
  const build = await buildServer();
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  // Every client here comes from 127.0.0.1, and the tests sign up more users than one address
  // may in an hour; the sign-up limits have tests of their own (tests/http/sign-up-limits.test.ts).
  const env = baseServerEnv({ GATEHOUSE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', GATEHOUSE_SIGN_UPS_PER_ADDRESS: '100000' });
  const owner = JSON.parse(await runCli(build.outDir, env, ['owner', 'create', '--init', '--email', `${name}@example.com`, '--password', 'live-server-password-1'])) as { token: string };
  const server = await startServerProcess(build.outDir, env);
  const base = server.base;

  async function consoleCall(method: string, path: string, body?: unknown) {
    const res = await fetch(`${base}/api/console${path}`, {
      method,
      headers: { authorization: `Bearer ${owner.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }

  return {
    build,
    server,
    base,
    dataDir,
    ownerAuth: `Bearer ${owner.token}`,
    console: consoleCall,
    async createApp(settings = {}) {
      const res = await consoleCall('POST', '/applications', { name: `App ${Math.random().toString(36).slice(2)}`, ...settings });
      if (res.status !== 201) throw new Error(`create application: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.application.id, ...res.body.credentials };
    },
    async licenses(appId, count, minutes) {
      const res = await consoleCall('POST', `/applications/${appId}/licenses`, { count, minutes });
      if (res.status !== 201) throw new Error(`licenses: ${res.status} ${JSON.stringify(res.body)}`);
      return (res.body.licenses as Array<{ code: string }>).map((l) => l.code);
    },
    async uploadAndWait(app, fileName, content, options) {
      const auth = { authorization: `Bearer ${app.admin_api_key}` };
      const form = new FormData();
      form.append('name', fileName);
      form.append('is_public', String(options.isPublic));
      form.append('store_encrypted', String(options.encrypted));
      form.append('file', content, fileName);
      const res = await fetch(`${base}/api/admin/files`, { method: 'POST', headers: auth, body: form });
      const created = (await res.json()) as { id: string };
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(created)}`);
      for (const started = Date.now(); Date.now() - started < 120_000; await sleep(100)) {
        const file = (await (await fetch(`${base}/api/admin/files/${created.id}`, { headers: auth })).json()) as { id: string; processing_status: string; storage_path: string; sha256: string };
        if (file.processing_status === 'COMPLETED') return file;
        if (file.processing_status === 'FAILED') throw new Error(`processing failed: ${JSON.stringify(file)}`);
      }
      throw new Error('upload still PENDING after 120 s');
    },
    loadClient: () => import(pathToFileURL(exportedFile(build.outDir, './client')).href) as Promise<ClientModule>,
    async stop() {
      await killServer(server);
      build.remove();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
