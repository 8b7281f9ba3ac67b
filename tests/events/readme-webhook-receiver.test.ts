// The README's webhook receiver (README.md, Webhooks), run as written: saved as a module, started
// with a secret, and sent deliveries signed by Gatehouse's own sender.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebhookSender } from '../../src/adapters/events/webhook-sender.js';
import { webhookSecretOf } from '../../src/domain/webhook-secret.js';
import { repoRoot } from '../support/server-process.js';
import { seededRandom } from '../support/seeded-random.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const block = /<!-- readme-test: webhook-receiver -->\s*\n```js\n([\s\S]*?)\n```\n/.exec(readme)?.[1];
const secret = webhookSecretOf(seededRandom('readme-receiver').bytes(32));

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => done(port));
    });
  });

let dir = '';
let output = '';
/** Called on each piece of the receiver's output. */
let onOutput = () => {};

/**
 * Resolves once the receiver has printed `text`: it prints after it answered, so its line may
 * reach this process after the answer did. Bounded, so a receiver that never prints it fails.
 */
function printed(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the receiver did not print ${text}; it printed: ${output}`)), 10_000);
    onOutput = () => {
      if (!output.includes(text)) return;
      clearTimeout(timer);
      resolve();
    };
    onOutput();
  });
}
let url = '';
let stop = () => {};
beforeAll(async () => {
  if (block === undefined) throw new Error('README.md has no block marked readme-test: webhook-receiver');
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-receiver-'));
  writeFileSync(join(dir, 'receiver.mjs'), block);
  const port = await freePort();
  url = `http://127.0.0.1:${port}/`;
  const child = spawn(process.execPath, [join(dir, 'receiver.mjs')], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const take = (d: Buffer) => {
    output += d.toString();
    onOutput();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  stop = () => child.kill('SIGKILL');
  // Listening once a connection is accepted (a bound, not a wait).
  for (let i = 0; i < 100; i++) {
    const up = await fetch(url, { method: 'POST' }).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the receiver did not start: ${output}`);
});
afterAll(() => {
  stop();
  rmSync(dir, { recursive: true, force: true });
});

const sender = createWebhookSender({ allowPrivate: true });
const body = JSON.stringify({ type: 'user.created', timestamp: new Date().toISOString(), application_id: 'app', data: {} });

it('accepts a delivery signed with its secret, and the one signed during a rotation', async () => {
  const other = webhookSecretOf(Buffer.alloc(32, 9));
  expect((await sender.send({ url, id: 'evt-readme-1', at: Date.now(), body, secrets: [secret] })).statusCode).toBe(204);
  expect((await sender.send({ url, id: 'evt-readme-2', at: Date.now(), body, secrets: [other, secret] })).statusCode).toBe(204);
  await printed('user.created evt-readme-2');
  expect(output).toContain('user.created evt-readme-1');
});

it('refuses a wrong signature and an old timestamp', async () => {
  const other = webhookSecretOf(Buffer.alloc(32, 9));
  expect((await sender.send({ url, id: 'evt-readme-3', at: Date.now(), body, secrets: [other] })).statusCode).toBe(400);
  expect((await sender.send({ url, id: 'evt-readme-4', at: Date.now() - 3_600_000, body, secrets: [secret] })).statusCode).toBe(400);
  expect(output).not.toContain('evt-readme-3');
});
