// What the scenarios run against, made through the public interfaces a vendor uses: an owner
// (CLI), an application, its variables, announcements and files (console and admin APIs), and
// members who signed up, redeemed a license and logged in (integration API).
import { randomBytes } from 'node:crypto';
import type { ServerProcess } from './server-process.js';

export interface BenchApp {
  id: string;
  ownerToken: string;
  apiKey: string;
  apiSecret: string;
  adminApiKey: string;
}

export interface Member {
  username: string;
  password: string;
  hardwareId: string;
}

async function call(server: ServerProcess, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<unknown> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text === '' ? null : (JSON.parse(text) as unknown);
}

export const integrationHeaders = (app: BenchApp): Record<string, string> => ({ 'x-api-key': app.apiKey, 'x-api-secret': app.apiSecret });

/** An owner (through the CLI, as an operator would) and one application with sessions that outlive the run. */
export async function createBenchApp(server: ServerProcess, name = 'bench'): Promise<BenchApp> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const created = JSON.parse(await server.cli(['owner', 'create', '--email', email, '--password', `pw-${randomBytes(18).toString('base64url')}`])) as {
    token?: string;
  };
  if (typeof created.token !== 'string') throw new Error('owner create printed no token');
  const ownerToken = created.token;
  const body = (await call(
    server,
    'POST',
    '/api/console/applications',
    { authorization: `Bearer ${ownerToken}` },
    {
      name,
      device_auth: true,
      session_ttl_seconds: 86_400,
    },
  )) as { application: { id: string }; credentials: { api_key: string; api_secret: string; admin_api_key: string } };
  return {
    id: body.application.id,
    ownerToken,
    apiKey: body.credentials.api_key,
    apiSecret: body.credentials.api_secret,
    adminApiKey: body.credentials.admin_api_key,
  };
}

const console_ = (server: ServerProcess, app: BenchApp, method: string, path: string, body?: unknown) =>
  call(server, method, `/api/console/applications/${app.id}${path}`, { authorization: `Bearer ${app.ownerToken}` }, body);

/** License codes of `minutes` each, made by the owner in batches of at most 10,000 (the API's limit). */
export async function createLicenses(server: ServerProcess, app: BenchApp, count: number, minutes: number | null = 525_600): Promise<string[]> {
  const codes: string[] = [];
  while (codes.length < count) {
    const batch = Math.min(10_000, count - codes.length);
    const body = (await console_(server, app, 'POST', '/licenses', { count: batch, minutes })) as { licenses: Array<{ code: string }> };
    codes.push(...body.licenses.map((l) => l.code));
  }
  return codes;
}

/** The app_context scenario's content: 10 variables, 2 live announcements, 5 small files (COMPLETED). */
export async function addContent(server: ServerProcess, app: BenchApp): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await console_(server, app, 'PUT', `/variables/setting_${i}`, { value: `value ${i}: ${randomBytes(12).toString('hex')}`, is_public: i % 2 === 0 });
  }
  const publishFrom = new Date(Date.now() - 3_600_000).toISOString();
  for (let i = 0; i < 2; i++) {
    await console_(server, app, 'POST', '/announcements', {
      title: `Release ${i + 1}`,
      content_html: `<p>What changed in release ${i + 1}: faster start, fewer crashes.</p>`,
      status: 'PUBLISHED',
      publish_from: publishFrom,
    });
  }
  for (let i = 0; i < 5; i++) await uploadSmallFile(server, app, `asset-${i}.bin`, randomBytes(4096), i % 2 === 0);
}

/** Uploads a file through the admin API and waits until it is COMPLETED; returns its id. */
export async function uploadSmallFile(server: ServerProcess, app: BenchApp, name: string, bytes: Buffer, encrypted: boolean): Promise<string> {
  const form = new FormData();
  form.set('name', name);
  form.set('is_public', 'false');
  form.set('store_encrypted', String(encrypted));
  form.set('file', new Blob([bytes]), name);
  const response = await fetch(`${server.baseUrl}/api/admin/files`, { method: 'POST', headers: { authorization: `Bearer ${app.adminApiKey}` }, body: form });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`uploading ${name} answered ${response.status}: ${text}`);
  const id = (JSON.parse(text) as { id: string }).id;
  await waitCompleted(server, app, id);
  return id;
}

export interface StoredFile {
  storage_path: string;
  size_bytes: number;
}

export async function waitCompleted(server: ServerProcess, app: BenchApp, fileId: string, timeoutMs = 600_000): Promise<StoredFile> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const file = (await call(server, 'GET', `/api/admin/files/${fileId}`, { authorization: `Bearer ${app.adminApiKey}` })) as {
      processing_status: string;
      processing_error: string | null;
      storage_path: string;
      size_bytes: number;
    };
    if (file.processing_status === 'COMPLETED') return { storage_path: file.storage_path, size_bytes: file.size_bytes };
    if (file.processing_status === 'FAILED') throw new Error(`file ${fileId} FAILED: ${file.processing_error ?? ''}`);
    if (Date.now() > deadline) throw new Error(`file ${fileId} still ${file.processing_status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Codes of a base plan of a year with the entitlements a client reads in every membership answer. */
async function createPlanLicenses(server: ServerProcess, app: BenchApp, name: string, count: number): Promise<string[]> {
  const entitlements = ['beta', 'cloud_saves', 'export', 'priority_support', 'sync'];
  const plan = (await console_(server, app, 'POST', '/plans', { name, kind: 'base', duration_minutes: 525_600, entitlements })) as { id: string };
  const codes: string[] = [];
  while (codes.length < count) {
    const batch = Math.min(10_000, count - codes.length);
    const body = (await console_(server, app, 'POST', '/licenses', { count: batch, plan_id: plan.id })) as { licenses: Array<{ code: string }> };
    codes.push(...body.licenses.map((l) => l.code));
  }
  return codes;
}

/** Members with an active membership of a plan: sign-up, a redeemed license, each on a device of its own. */
export async function createMembers(server: ServerProcess, app: BenchApp, prefix: string, count: number): Promise<Member[]> {
  const codes = await createPlanLicenses(server, app, `Pro ${prefix}`, count);
  const headers = integrationHeaders(app);
  const one = async (i: number): Promise<Member> => {
    const member = { username: `${prefix}${i}`, password: `pw-${randomBytes(9).toString('base64url')}`, hardwareId: `hw-${prefix}${i}` };
    await call(server, 'POST', '/api/integration/sign_up', headers, { username: member.username, password: member.password, hardware_id: member.hardwareId });
    await call(server, 'POST', '/api/integration/activate_license', headers, {
      code: codes[i],
      username: member.username,
      password: member.password,
      hardware_id: member.hardwareId,
    });
    return member;
  };
  // A few at a time: each costs argon2 work, and the server bounds it anyway.
  const members: Member[] = [];
  for (let i = 0; i < count; i += 4) members.push(...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, (_, j) => one(i + j)))));
  return members;
}

export const loginBody = (m: Member) => JSON.stringify({ credentials: { username: m.username, password: m.password }, hardware_id: m.hardwareId });

export async function logIn(server: ServerProcess, app: BenchApp, member: Member): Promise<string> {
  const response = await fetch(`${server.baseUrl}/api/integration/auth/login`, {
    method: 'POST',
    headers: { ...integrationHeaders(app), 'content-type': 'application/json' },
    body: loginBody(member),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`login of ${member.username} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { session_token: string }).session_token;
}
