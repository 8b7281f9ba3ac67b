// Where the application context says a file is encrypted, the SDK takes only bytes in the
// encrypted format: plain bytes (a misbehaving proxy, a swapped object) raise a typed
// EncryptedFileError, with or without the files key. Against a stub of the integration API.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { encryptBuffer } from '../../src/file-format/encrypted-file.js';
import { EncryptedFileError, GatehouseClient } from '../../src/client/gatehouse-client.js';

const KEY = randomBytes(32);
const ENCRYPTED_ID = '11111111-1111-4111-8111-111111111111';
const PLAIN_ID = '22222222-2222-4222-8222-222222222222';

let server: Server | null = null;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** An integration API that lists one encrypted and one plain file and serves `bytes` for both. */
async function stub(bytes: Buffer): Promise<string> {
  server = createServer((req, res) => {
    if (req.url === '/api/integration/app_context') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          application: {
            id: '33333333-3333-4333-8333-333333333333',
            name: 'Stub',
            variables: [],
            files: [
              { id: ENCRYPTED_ID, name: 'secret.bin', mime_type: 'application/octet-stream', is_encrypted: true },
              { id: PLAIN_ID, name: 'plain.bin', mime_type: 'application/octet-stream', is_encrypted: false },
            ],
          },
          announcements: [],
          user: null,
          server_time: new Date().toISOString(),
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
    res.end(bytes);
  });
  await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

const client = (baseUrl: string, withKey: boolean) => new GatehouseClient({ baseUrl, apiKey: 'gh_pk_x', apiSecret: 'gh_sk_x', ...(withKey ? { filesEncryptionKey: KEY } : {}) });

describe('a file the context lists as encrypted', () => {
  const plain = Buffer.from('just some plain bytes, not the encrypted format at all');

  for (const withKey of [true, false]) {
    it(`plain bytes are refused with EncryptedFileError NOT_ENCRYPTED_FILE (${withKey ? 'with' : 'without'} the key)`, async () => {
      const base = await stub(plain);
      const error = await readAll(await client(base, withKey).downloadFile(ENCRYPTED_ID)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EncryptedFileError);
      expect(error).toMatchObject({ code: 'NOT_ENCRYPTED_FILE' });
    });

    it(`a body too short to hold the format's header is refused too (${withKey ? 'with' : 'without'} the key)`, async () => {
      const base = await stub(Buffer.from('GHF'));
      const error = await readAll(await client(base, withKey).downloadFile(ENCRYPTED_ID)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EncryptedFileError);
    });
  }

  it('bytes in the format come decrypted with the key, and as stored without it', async () => {
    const content = randomBytes(100_000);
    const stored = encryptBuffer(KEY, content);
    const base = await stub(stored);
    expect((await readAll(await client(base, true).downloadFile(ENCRYPTED_ID))).equals(content)).toBe(true);
    expect((await readAll(await client(base, false).downloadFile(ENCRYPTED_ID))).equals(stored)).toBe(true);
  });

  it('a file listed as plain is passed through as it comes', async () => {
    const base = await stub(plain);
    expect((await readAll(await client(base, false).downloadFile(PLAIN_ID))).equals(plain)).toBe(true);
    expect((await readAll(await client(base, true).downloadFile(PLAIN_ID))).equals(plain)).toBe(true);
  });
});
