// Acceptance (issue 16, point 2): the SDK's license files (docs/sdk.md, Client SDK, Offline license
// files). Each typed refusal of verifyLicenseFile; a clock set back behind a signed time the
// client has seen is refused, across restarts through the state file; appContext()'s offline
// fallback works with the server stopped and says so. The server runs in this process (on the
// test's clock, set to the real time: the fallback checks against the real clock), listening on
// loopback, so the SDK speaks real HTTP to it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueConsoleToken } from '../../src/application/console/owners.js';
import { GatehouseClient, LicenseFileError } from '../../src/client/gatehouse-client.js';
import { LICENSE_FILE_BEGIN, LICENSE_FILE_END, readLicenseFile } from '../../src/signing/license-file.js';
import { consoleRequest, createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { member, type TestApplication } from '../support/integration.js';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

let t: TestApp;
let base: string;
let work: string;
let stopped = false;

beforeEach(async () => {
  t = await startTestApp();
  t.clock.set(Date.now());
  // The ready-made owner's token was made at the test clock's start, months before now: idle past
  // its expiry. A fresh one.
  const owner = await t.deps.store.findOwnerByEmail('owner@example.com');
  if (owner === null) throw new Error('no ready-made owner');
  t.ownerToken = (await issueConsoleToken(t.deps, owner)).token;
  await t.http.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.http.server.address() as AddressInfo).port}`;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-sdk-license-'));
  stopped = false;
});

afterEach(async () => {
  if (!stopped) await t.close();
  rmSync(work, { recursive: true, force: true });
});

/** Stops the server: nothing listens at `base` any more. */
async function stopServer() {
  stopped = true;
  await t.close();
}

type App = TestApplication & { credentials: { api_key: string; api_secret: string } };

async function publicKeyOf(app: App): Promise<string> {
  return (await consoleRequest(t, 'GET', `/applications/${app.id}`)).json().response_signing_public_key as string;
}

async function clientOf(app: App, options: { hardwareId?: string; stateFile?: string; licenseFile?: string; keys?: string[] } = {}) {
  return new GatehouseClient({
    baseUrl: base,
    apiKey: app.credentials.api_key,
    apiSecret: app.credentials.api_secret,
    responseSigningPublicKeys: options.keys ?? [await publicKeyOf(app)],
    applicationId: app.id,
    ...(options.hardwareId === undefined ? {} : { hardwareId: options.hardwareId }),
    ...(options.stateFile === undefined ? {} : { stateFile: options.stateFile }),
    ...(options.licenseFile === undefined ? {} : { licenseFile: options.licenseFile }),
  });
}

/** A member logged in on HW-1 through the SDK, and the license file the server issued it. */
async function memberWithFile(app: App, username: string, minutes: number | null = 30 * 24 * 60, extra: { stateFile?: string; licenseFile?: string } = {}) {
  const u = await member(t, app, username, undefined, minutes, { hardware_id: 'HW-1' });
  const client = await clientOf(app, { hardwareId: 'HW-1', ...extra });
  await client.login({ username, password: u.password });
  const issued = await client.requestLicenseFile();
  return { user: u, client, issued };
}

/** The file with its payload changed and its signature kept. */
function tampered(text: string, change: (claims: Record<string, unknown>) => void): string {
  const { envelope, claims } = readLicenseFile(text);
  const changed = { ...claims } as Record<string, unknown>;
  change(changed);
  const forged = { ...envelope, payload: Buffer.from(JSON.stringify(changed)).toString('base64url') };
  return `${LICENSE_FILE_BEGIN}\n${Buffer.from(JSON.stringify(forged)).toString('base64')}\n${LICENSE_FILE_END}\n`;
}

/** The LicenseFileError code a verification ends in (fails the test when it verifies). */
async function refusal(verifying: Promise<unknown>): Promise<string> {
  const error = await verifying.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LicenseFileError);
  return (error as LicenseFileError).code;
}

describe('verifyLicenseFile', () => {
  it('a file the server issued verifies, and the SDK reads its claims', async () => {
    const app = await createApplication(t, { license_file_ttl_minutes: 60 * 24 * 60 });
    const { user, client, issued } = await memberWithFile(app, 'alice');
    expect(issued.claims).toMatchObject({ app: app.id, sub: user.id, username: 'alice', membership: { is_lifetime: false } });
    const claims = await client.verifyLicenseFile(issued.license_file);
    expect(claims.exp * 1000).toBe(Date.parse(issued.expires_at));
    expect(claims.exp).toBe(claims.membership.active_until);
  });

  it('each refusal is typed: bad signature, other application, other machine, expired, clock rolled back', async () => {
    const app = await createApplication(t);
    const { client, issued } = await memberWithFile(app, 'bob');
    const file = issued.license_file;
    const { iat, exp } = issued.claims;

    // Bad signature: a longer expiry written into the payload, the signature kept; or a file of another key.
    expect(await refusal(client.verifyLicenseFile(tampered(file, (c) => (c['exp'] = exp + 365 * 24 * 3600))))).toBe('SIGNATURE_INVALID');
    const other = await createApplication(t, { device_auth: false });
    const stranger = await memberWithFile(other, 'eve');
    expect(await refusal(client.verifyLicenseFile(stranger.issued.license_file))).toBe('SIGNATURE_INVALID');
    // Other application: even a client that pins both keys takes no file of another application for its own.
    const pinsBoth = await clientOf(app, { hardwareId: 'HW-1', keys: [await publicKeyOf(app), await publicKeyOf(other)] });
    expect(await refusal(pinsBoth.verifyLicenseFile(stranger.issued.license_file))).toBe('OTHER_APPLICATION');
    // Other machine: the client's own hardware id, or one given.
    expect(await refusal(client.verifyLicenseFile(file, { hardwareId: 'HW-2' }))).toBe('OTHER_MACHINE');
    const elsewhere = await clientOf(app, { hardwareId: 'HW-2' });
    expect(await refusal(elsewhere.verifyLicenseFile(file))).toBe('OTHER_MACHINE');
    // Expired: at its exp.
    expect(await refusal(client.verifyLicenseFile(file, { now: exp * 1000 }))).toBe('EXPIRED');
    expect((await client.verifyLicenseFile(file, { now: exp * 1000 - 1000 })).exp).toBe(exp);
    // Clock rolled back: behind the file's own signed iat by more than the tolerance.
    expect(await refusal(client.verifyLicenseFile(file, { now: new Date((iat - 3600) * 1000) }))).toBe('CLOCK_ROLLED_BACK');
    // Not a license file at all.
    expect(await refusal(client.verifyLicenseFile('hello'))).toBe('MALFORMED');
  });

  it('a clock set back behind a signed time seen in an answer is refused, also after a restart through the state file', async () => {
    const app = await createApplication(t, { license_file_ttl_minutes: 60 * 24 * 60 });
    const stateFile = join(work, 'gatehouse-state.json');
    const { client, issued } = await memberWithFile(app, 'carol', 30 * 24 * 60, { stateFile });
    const { iat, exp } = issued.claims;
    // The server's time moves on two days; the client sees it in a signed answer.
    t.clock.advance(2 * DAY_MS);
    await client.appContext();
    const seen = Math.floor(t.clock.now() / 1000);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toEqual({ v: 1, newest_signed_time: seen });
    // A day after issuance is within the file's own life, but behind what the client has seen.
    const setBack = { now: (iat + 24 * 3600) * 1000 };
    expect(await refusal(client.verifyLicenseFile(issued.license_file, setBack))).toBe('CLOCK_ROLLED_BACK');
    expect((await client.verifyLicenseFile(issued.license_file, { now: seen * 1000 })).exp).toBe(exp);
    // A new client (a restart) with the same state file remembers it, without asking the server.
    const key = await publicKeyOf(app);
    await stopServer();
    const restarted = await clientOf(app, { hardwareId: 'HW-1', stateFile, keys: [key] });
    expect(await refusal(restarted.verifyLicenseFile(issued.license_file, setBack))).toBe('CLOCK_ROLLED_BACK');
    // Without the state file, only the file's own iat holds the clock.
    const forgetful = await clientOf(app, { hardwareId: 'HW-1', keys: [key] });
    expect((await forgetful.verifyLicenseFile(issued.license_file, setBack)).exp).toBe(exp);
  });

  it('needs pinned keys', async () => {
    const app = await createApplication(t);
    const unpinned = new GatehouseClient({ baseUrl: base, apiKey: app.credentials.api_key, apiSecret: app.credentials.api_secret });
    await expect(unpinned.verifyLicenseFile('x')).rejects.toThrow(TypeError);
  });
});

describe('appContext({offlineFallback: true})', () => {
  it('with the server stopped, answers from the stored license file and says so', async () => {
    const app = await createApplication(t);
    const licenseFile = join(work, 'app.lic');
    const stateFile = join(work, 'state.json');
    const { user, client, issued } = await memberWithFile(app, 'dave', null, { licenseFile, stateFile });
    expect(readFileSync(licenseFile, 'utf8')).toBe(issued.license_file);
    const online = await client.appContext({ offlineFallback: true });
    expect(online.offline).toBeUndefined();
    const key = await publicKeyOf(app);

    await stopServer();
    // Without the fallback, the connection's error.
    await expect(client.appContext()).rejects.toThrow();
    const offline = await client.appContext({ offlineFallback: true });
    expect(offline).toMatchObject({
      offline: true,
      expires_at: issued.expires_at,
      user: { id: user.id, username: 'dave', membership: { is_active: true, is_lifetime: true, active_until: null } },
      license: issued.claims,
    });
    if (offline.offline !== true) throw new Error('not offline');
    expect(offline.cause).toBeInstanceOf(Error);

    // A restarted client, never logged in, falls back the same.
    const restarted = await clientOf(app, { hardwareId: 'HW-1', licenseFile, stateFile, keys: [key] });
    expect((await restarted.appContext({ offlineFallback: true })).offline).toBe(true);
    // On another machine the stored file is refused, not trusted.
    const elsewhere = await clientOf(app, { hardwareId: 'HW-2', licenseFile, keys: [key] });
    expect(await refusal(elsewhere.appContext({ offlineFallback: true }))).toBe('OTHER_MACHINE');
    // A stored file altered on disk is refused too.
    writeFileSync(
      licenseFile,
      tampered(issued.license_file, (c) => (c['username'] = 'mallory')),
    );
    expect(await refusal(restarted.appContext({ offlineFallback: true }))).toBe('SIGNATURE_INVALID');
    // No stored file: the connection's error, as without the fallback.
    rmSync(licenseFile);
    await expect(restarted.appContext({ offlineFallback: true })).rejects.not.toBeInstanceOf(LicenseFileError);
  });
});
