// The SDK's devices (docs/machines.md, "Devices"): what the machine says on sign-up and login,
// devices() and dropDevice() against a real server process (the compiled build).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveServer, type AppCredentials, type ClientModule, type LiveServer } from './live-server.js';

let live: LiveServer;
let sdk: ClientModule;
let app: AppCredentials;

beforeAll(async () => {
  live = await startLiveServer('gatehouse-sdk-devices');
  sdk = await live.loadClient();
  app = await live.createApp({ device_auth: true, default_allowed_devices: 2, default_allowed_sessions: 2, device_reset_cooldown_hours: 24 });
}, 180_000);

afterAll(async () => {
  await live?.stop();
});

const clientFor = (hardwareId: string, device?: { name?: string; platform?: string; app_version?: string }) =>
  new sdk.GatehouseClient({ baseUrl: live.base, apiKey: app.api_key, apiSecret: app.api_secret, hardwareId, ...(device === undefined ? {} : { device }) });

describe('SDK: devices', () => {
  it('sign-up and login send the device; devices() lists them, dropDevice() ends the other machine’s session', async () => {
    const credentials = { username: 'dora', password: 'dora-password-1' };
    const laptop = clientFor('hw-laptop', { name: 'Laptop', platform: 'macos', app_version: '1.0.0' });
    await laptop.signUp(credentials.username, credentials.password);
    const [code] = await live.licenses(app.id, 1, null);
    await laptop.activateLicense(code as string, credentials);
    await laptop.login(credentials, { device: { app_version: '1.1.0' } });
    const desk = clientFor('hw-desk', { name: 'Desk' });
    await desk.login(credentials);

    const seen = await laptop.devices();
    expect(seen.map((d) => [d.name, d.platform, d.app_version, d.current])).toEqual([
      ['Laptop', 'macos', '1.1.0', true],
      ['Desk', null, null, false],
    ]);
    const deskSession = desk.sessionToken;
    await laptop.dropDevice(seen[1]!.id);
    expect((await laptop.devices()).map((d) => d.name)).toEqual(['Laptop']);
    // The desk's token is over at once (the SDK would log in again with its kept credentials).
    const res = await fetch(`${live.base}/api/integration/devices`, { headers: { 'x-api-key': app.api_key, 'x-api-secret': app.api_secret, authorization: `Bearer ${deskSession}` } });
    expect(res.status).toBe(401);
    // Counted by the reset cooldown; someone else's device is not found.
    await expect(laptop.dropDevice(seen[0]!.id)).rejects.toBeInstanceOf(sdk.ResetCooldownError);
    await expect(laptop.dropDevice('6f1c0a52-3d8e-4c1b-9a57-0d2f3e4b5c6d')).rejects.toMatchObject({ status: 404, code: 'DEVICE_NOT_FOUND' });
    await expect(clientFor('hw-x', { name: 'bad\u0000' }).login(credentials)).rejects.toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
  });
});
