// Acceptance (issue 18, point 2): the SDK's user variables, password change and device reset, and
// the CLI's `gatehouse license <code>`, against a real server process (the compiled build).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGatehouse } from '../cli/run-cli.js';
import { startLiveServer, type AppCredentials, type ClientModule, type LiveServer } from './live-server.js';

let live: LiveServer;
let sdk: ClientModule;
let app: AppCredentials;

beforeAll(async () => {
  live = await startLiveServer('gatehouse-sdk-end-user');
  sdk = await live.loadClient();
  app = await live.createApp({ device_auth: true, default_allowed_devices: 1, default_allowed_sessions: 2, device_reset_cooldown_hours: 24 });
}, 180_000);

afterAll(async () => {
  await live?.stop();
});

const clientFor = (hardwareId: string, credentials: AppCredentials = app) =>
  new sdk.GatehouseClient({ baseUrl: live.base, apiKey: credentials.api_key, apiSecret: credentials.api_secret, hardwareId });

/** A password member with lifetime access, logged in on `hardwareId`. */
async function member(username: string, password: string, hardwareId = `hw-${username}`) {
  const client = clientFor(hardwareId);
  const summary = await client.signUp(username, password);
  const [code] = await live.licenses(app.id, 1, null);
  await client.activateLicense(code as string, { username, password });
  await client.login({ username, password });
  return { client, id: summary.id };
}

describe('SDK: user variables', () => {
  it("set, get, list and delete the logged-in user's own variables", async () => {
    const { client } = await member('vera', 'vera-password-1');
    const set = await client.setUserVariable('progress.level', '7');
    expect(set).toMatchObject({ name: 'progress.level', value: '7' });
    expect(Date.parse(set.updated_at)).not.toBeNaN();
    await client.setUserVariable('theme', 'dark');
    expect((await client.getUserVariable('theme'))?.value).toBe('dark');
    expect((await client.listUserVariables()).map((v) => v.name)).toEqual(['progress.level', 'theme']);
    await client.deleteUserVariable('theme');
    expect(await client.getUserVariable('theme')).toBeNull();
    await expect(client.deleteUserVariable('theme')).rejects.toMatchObject({ status: 404, code: 'VARIABLE_NOT_FOUND' });
    await expect(client.deleteUserVariable('theme')).rejects.toBeInstanceOf(sdk.NotFoundError);
    const big = 'z'.repeat(64 * 1024);
    await client.setUserVariable('big', big);
    expect((await client.getUserVariable('big'))?.value).toBe(big);
    await expect(client.setUserVariable('bad name', 'x')).rejects.toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    // Another user sees none of them.
    const { client: other } = await member('walt', 'walt-password-1');
    expect(await other.listUserVariables()).toEqual([]);
    expect(await other.getUserVariable('progress.level')).toBeNull();
  });

  it('without a login: LoginRequiredError', async () => {
    await expect(clientFor('hw-nobody').listUserVariables()).rejects.toBeInstanceOf(sdk.LoginRequiredError);
  });
});

describe('SDK: changePassword', () => {
  it('changes the password of the current login; the client logs in again with the new one by itself', async () => {
    const { client } = await member('paula', 'paula-password-1');
    await client.setUserVariable('k', 'v');
    await client.changePassword('paula-password-2');
    // The session ended with the change; the next request renews it with the kept new password.
    expect((await client.getUserVariable('k'))?.value).toBe('v');
    await expect(clientFor('hw-paula').login({ username: 'paula', password: 'paula-password-1' })).rejects.toBeInstanceOf(sdk.InvalidCredentialsError);
    await expect(client.changePassword('short', { username: 'paula', password: 'paula-password-2' })).rejects.toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    await expect(clientFor('hw-x').changePassword('whatever-password')).rejects.toBeInstanceOf(TypeError);
  });

  it('a license-code user: NOT_A_PASSWORD_USER', async () => {
    const [code] = await live.licenses(app.id, 1, null);
    const client = clientFor('hw-lic');
    const user = await client.signUpWithLicense(code as string);
    await expect(client.changePassword('new-password-1', { username: user.username, password: code as string })).rejects.toMatchObject({ status: 422, code: 'NOT_A_PASSWORD_USER' });
  });
});

describe('SDK: resetDevices', () => {
  it('frees the device slot; inside the cooldown ResetCooldownError with when and Retry-After', async () => {
    const { client } = await member('rita', 'rita-password-1', 'old-machine');
    const moved = clientFor('new-machine');
    await expect(moved.login({ username: 'rita', password: 'rita-password-1' })).rejects.toBeInstanceOf(sdk.DeviceLimitReachedError);
    const reset = await client.resetDevices();
    const next = Date.parse(reset.next_reset_at);
    expect(next - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await moved.login({ username: 'rita', password: 'rita-password-1' });
    const refused = await moved.resetDevices().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(sdk.ResetCooldownError);
    const cooldown = refused as InstanceType<ClientModule['ResetCooldownError']>;
    expect(cooldown).toMatchObject({ status: 429, code: 'RESET_COOLDOWN' });
    expect(cooldown.nextResetAt.getTime()).toBe(next);
    expect(cooldown.retryAfterSeconds).toBeGreaterThan(23 * 3600);
  });

  it('with a license code, and RESET_DISABLED where the application leaves it off', async () => {
    const [code] = await live.licenses(app.id, 1, null);
    const client = clientFor('lic-machine');
    await client.signUpWithLicense(code as string);
    expect(Date.parse((await client.resetDevices({ code: code as string })).next_reset_at)).toBeGreaterThan(Date.now());
    const off = await live.createApp({ device_auth: false });
    const offClient = clientFor('x', off);
    await offClient.signUp('olga', 'olga-password-1');
    await expect(offClient.resetDevices({ username: 'olga', password: 'olga-password-1' })).rejects.toMatchObject({ status: 403, code: 'RESET_DISABLED' });
  });
});

describe('SDK: startTrial', () => {
  it('grants the trial plan with full credentials; a second account on the machine gets TrialRefusedError', async () => {
    const trialApp = await live.createApp({ device_auth: true, default_allowed_devices: 1 });
    const consoleCall = async (method: string, path: string, body: unknown) =>
      (
        await fetch(`${live.base}/api/console/applications/${trialApp.id}${path}`, {
          method,
          headers: { authorization: live.ownerAuth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();
    const plan = (await consoleCall('POST', '/plans', { name: 'Trial', kind: 'base', duration_minutes: 1440, trial: true })) as { id: string };
    expect(await consoleCall('PATCH', '', { trial_plan_id: plan.id })).toMatchObject({ trial_plan_id: plan.id });

    const tess = clientFor('trial-machine', trialApp);
    await tess.signUp('tess', 'tess-password-1');
    await expect(tess.startTrial('trial-machine')).rejects.toBeInstanceOf(TypeError); // no credentials given or kept
    const started = await tess.startTrial('trial-machine', { username: 'tess', password: 'tess-password-1' });
    expect(started.membership).toMatchObject({ is_active: true, is_lifetime: false });
    expect(Date.parse(started.membership.active_until as string) - Date.now()).toBeGreaterThan(23 * 3600_000);
    await tess.login({ username: 'tess', password: 'tess-password-1' });

    const tom = clientFor('trial-machine', trialApp);
    await tom.signUp('tom', 'tom-password-1');
    const refused = await tom.startTrial('trial-machine', { username: 'tom', password: 'tom-password-1' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(sdk.TrialRefusedError);
    expect(refused).toMatchObject({ status: 409, code: 'TRIAL_USED' });
    await expect(clientFor('x').startTrial('x', { username: 'rita', password: 'rita-password-1' })).rejects.toMatchObject({ status: 404, code: 'TRIAL_NOT_OFFERED' });
  });
});

describe('CLI: gatehouse license <code>', () => {
  const gatehouse = (args: string[], key = app.admin_api_key) => runGatehouse(live.build.outDir, args, { GATEHOUSE_URL: live.base, GATEHOUSE_ADMIN_API_KEY: key });

  it('looks a code up in any case; --json prints the License object', async () => {
    const [code] = (await live.licenses(app.id, 1, 90)) as [string];
    const human = await gatehouse(['license', code.toLowerCase()]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`${code} (id `);
    expect(human.stdout).toContain('grants: 90 minutes');
    expect(human.stdout).toContain('unused');

    const client = clientFor('cli-machine');
    const user = await client.signUpWithLicense(code);
    const json = await gatehouse(['license', code, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ application_id: app.id, code, minutes: 90, used_by_user_id: user.id, banned: false, is_credentials_license: true });
    expect((await gatehouse(['license', code])).stdout).toContain('(the login of a license-code user)');
  });

  it("a plan's code: the plan it grants and its seats taken", async () => {
    const plan = await live.console('POST', `/applications/${app.id}/plans`, { name: `Team ${Math.random().toString(36).slice(2)}`, kind: 'base', duration_minutes: 60, seats: 3 });
    const issued = await live.console('POST', `/applications/${app.id}/licenses`, { count: 1, plan_id: plan.body.id });
    const code = issued.body.licenses[0].code as string;
    await clientFor('team-machine').signUpWithLicense(code);
    const human = await gatehouse(['license', code]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`grants: plan ${plan.body.id}`);
    expect(human.stdout).toContain('seats: 1 of 3 taken');
    expect(JSON.parse((await gatehouse(['license', code, '--json'])).stdout)).toMatchObject({ plan_id: plan.body.id, seats: 3, redemptions: 1, minutes: null });
  });

  it("exits 5 for an unknown code or another application's; 4 for a wrong key; 2 without a code", async () => {
    const other = await live.createApp({ device_auth: false });
    const [theirs] = (await live.licenses(other.id, 1, 60)) as [string];
    for (const code of ['AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', theirs]) {
      const missing = await gatehouse(['license', code]);
      expect(missing.code).toBe(5);
      expect(missing.stderr.trimEnd()).toMatch(/^gatehouse: .*\(404 LICENSE_NOT_FOUND\)$/);
    }
    expect((await gatehouse(['license', theirs], 'gh_adm_wrong')).code).toBe(4);
    expect((await gatehouse(['license'])).code).toBe(2);
  });
});
