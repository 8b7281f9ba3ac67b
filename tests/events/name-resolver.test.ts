// How the webhook sender resolves names (adapters/events/name-resolver.ts): by DNS on the event
// loop with a deadline, so a slow name server never holds the libuv thread pool that password
// hashing uses, and a silent one is given up on; `localhost` is loopback without asking.
import { pbkdf2 } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createDnsResolver } from '../../src/adapters/events/name-resolver.js';
import { createWebhookSender } from '../../src/adapters/events/webhook-sender.js';
import { startDnsServer, type DnsServer } from '../support/dns-server.js';

let server: DnsServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Fills every thread of the libuv pool with password-hashing-like work; resolves when it is done. */
function saturateThreadPool(): { done: Promise<void>; finishedFirst: () => boolean } {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  let finished = 0;
  const jobs = Array.from({ length: threads * 2 }, () => new Promise<void>((done) => pbkdf2('password', 'salt', 400_000, 32, 'sha256', () => ((finished += 1), done()))));
  return { done: Promise.all(jobs).then(() => undefined), finishedFirst: () => finished > 0 };
}

describe('the webhook name resolver', () => {
  it('resolves through DNS while the thread pool is busy, and the sender uses it by default', async () => {
    server = await startDnsServer({ 'hooks.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const sender = createWebhookSender({ allowPrivate: false, dnsServers: [server.address] });
    const pool = saturateThreadPool();
    await sender.checkUrl('https://hooks.test/in');
    // Answered before any of the pool's work finished: the lookup did not queue behind it.
    expect(pool.finishedFirst()).toBe(false);
    expect(server.questions.sort()).toEqual(['hooks.test A', 'hooks.test AAAA']);
    await pool.done;
  });

  it('checks every address DNS gives, IPv6 ones included', async () => {
    server = await startDnsServer({ 'hooks.test': ['93.184.216.34', 'fd00::1'] });
    const sender = createWebhookSender({ allowPrivate: false, dnsServers: [server.address] });
    await expect(sender.checkUrl('https://hooks.test/')).rejects.toMatchObject({ code: 'WEBHOOK_URL_REFUSED', message: expect.stringContaining('unique-local') });
  });

  it('gives up on a silent name server at the deadline and refuses the URL', async () => {
    server = await startDnsServer({}, { silent: true });
    const resolve = createDnsResolver({ timeoutMs: 300, servers: [server.address] });
    await expect(resolve('hooks.test')).rejects.toThrow();
    expect(server.questions.length).toBeGreaterThan(0);
    const sender = createWebhookSender({ allowPrivate: false, resolve });
    await expect(sender.checkUrl('https://hooks.test/')).rejects.toMatchObject({ code: 'WEBHOOK_URL_REFUSED', message: 'URL host hooks.test does not resolve' });
  });

  it('answers localhost as loopback and refuses .invalid names without asking', async () => {
    server = await startDnsServer({});
    const resolve = createDnsResolver({ timeoutMs: 300, servers: [server.address] });
    expect(await resolve('localhost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(await resolve('api.localhost')).toHaveLength(2);
    await expect(resolve('hooks.invalid')).rejects.toThrow('never resolves');
    expect(server.questions).toEqual([]);
  });

  it('refuses a name the server does not know', async () => {
    server = await startDnsServer({});
    const sender = createWebhookSender({ allowPrivate: false, dnsServers: [server.address] });
    await expect(sender.checkUrl('https://nowhere.test/')).rejects.toMatchObject({ code: 'WEBHOOK_URL_REFUSED' });
  });
});
