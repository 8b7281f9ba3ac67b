// The webhook sender's connection (docs/api.md, Webhooks, "Server-side request forgery"): a name
// is resolved once, every address it has is checked, and the connection goes to the checked
// address (no second lookup), with the URL's name kept for the Host header and TLS (SNI).
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender, type Resolver } from '../../src/adapters/events/webhook-sender.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const message = (url: string) => ({ url, id: 'evt-1', at: Date.parse('2026-06-08T12:00:00Z'), body: '{"type":"webhook.test"}', secrets: [SECRET] });

/** A resolver answering `addresses` for every name, counting its calls. */
function fixedResolver(...addresses: string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

let receiver: Receiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

describe('the webhook sender', () => {
  it('connects to the address it checked, once resolved, and keeps the name in Host', async () => {
    receiver = await startReceiver('/in');
    const port = new URL(receiver.url).port;
    const resolve = fixedResolver('127.0.0.1');
    const sender = createWebhookSender({ allowPrivate: true, resolve });
    const result = await sender.send(message(`http://hooks.invalid:${port}/in?a=1`));
    expect(result).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
    expect(resolve.calls).toEqual(['hooks.invalid']);
    expect(receiver.received[0]).toMatchObject({ path: '/in?a=1', headers: { host: `hooks.invalid:${port}`, 'webhook-id': 'evt-1' } });
  });

  it('without the flag, refuses a name with any non-public address, before connecting', async () => {
    for (const addresses of [['10.1.2.3'], ['93.184.216.34', '127.0.0.1'], ['::1'], ['fd00::5'], ['::ffff:169.254.169.254'], ['2002:a9fe:a9fe::1'], ['64:ff9b:1::10.0.0.1'], ['::ffff:0:127.0.0.1']]) {
      const sender = createWebhookSender({ allowPrivate: false, resolve: fixedResolver(...addresses) });
      await expect(sender.checkUrl('https://hooks.invalid/')).rejects.toMatchObject({ code: 'WEBHOOK_URL_REFUSED' });
      const result = await sender.send(message('https://hooks.invalid/'));
      expect(result).toMatchObject({ statusCode: null, error: expect.stringContaining('resolves to a') });
    }
  });

  it('refuses a name that does not resolve', async () => {
    const sender = createWebhookSender({ allowPrivate: false, resolve: async () => [] });
    await expect(sender.checkUrl('https://hooks.invalid/')).rejects.toMatchObject({ code: 'WEBHOOK_URL_REFUSED' });
  });

  it('names the URL host in the TLS handshake (SNI) while connecting to the checked address', async () => {
    let hello: Buffer = Buffer.alloc(0);
    const server = createNetServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        hello = chunk;
        socket.destroy();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as AddressInfo;
      const sender = createWebhookSender({ allowPrivate: true, resolve: fixedResolver('127.0.0.1') });
      const result = await sender.send(message(`https://hooks.invalid:${port}/`));
      expect(result.statusCode).toBeNull();
      expect(hello.includes(Buffer.from('hooks.invalid'))).toBe(true);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const server = createNetServer(() => {});
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as AddressInfo;
      const sender = createWebhookSender({ allowPrivate: true, timeoutMs: 200 });
      const result = await sender.send(message(`http://127.0.0.1:${port}/`));
      expect(result).toMatchObject({ statusCode: null, error: 'no answer within 0.2 s' });
    } finally {
      server.close();
    }
  });

  it('keeps the first 2 KB of a long answer', async () => {
    receiver = await startReceiver();
    receiver.script({ status: 500, body: 'x'.repeat(100_000) });
    const result = await createWebhookSender({ allowPrivate: true }).send(message(receiver.url));
    expect(result.statusCode).toBe(500);
    expect(result.responseBody).toHaveLength(2048);
  });
});
