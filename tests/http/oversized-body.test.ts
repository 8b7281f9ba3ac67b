// A client still sending an over-limit body must get to read the 413, not a reset: the server
// reads and discards a bounded amount before it closes (docs/api.md, "Request bodies over the limit").
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LINGER, lingeringClose } from '../../src/adapters/http/lingering-close.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { multipartBody } from '../support/files.js';

let t: TestApp;
afterEach(() => t.close());

interface Exchange {
  /** Everything the server sent, as text. */
  response: string;
  /** Errors the client met while writing or reading (EPIPE, ECONNRESET), by code. */
  errors: string[];
  /** Body bytes the client managed to hand to its socket. */
  written: number;
}

/** Whether `received` holds a whole HTTP response (head and Content-Length body). */
function wholeResponse(received: Buffer): boolean {
  const text = received.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
  return length !== null && received.length >= headEnd + 4 + Number(length[1]);
}

/**
 * A raw HTTP/1.1 client in the middle of an upload: it writes its head and the first
 * `beforeAnswer` bytes of its body, and once the server has answered it goes on writing the rest
 * in 16 KiB chunks (as a client that does not look at the answer until it has sent everything
 * would), without stopping at the server's FIN, and half-closes once all is sent. It reads
 * whatever comes back until the connection is closed.
 */
function sendWhileWriting(port: number, head: string, body: Buffer, beforeAnswer: number): Promise<Exchange> {
  return new Promise((resolve) => {
    // Half-open allowed: the server's FIN after its answer does not stop the client's writing.
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const received: Buffer[] = [];
    const errors: string[] = [];
    let written = 0;
    let answered: () => void = () => undefined;
    const answer = new Promise<void>((done) => (answered = done));
    // A guard against a server that never closes: the test fails instead of hanging.
    const guard = setTimeout(() => (errors.push('server never closed'), socket.destroy()), 20_000);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (wholeResponse(Buffer.concat(received))) answered();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    socket.on('close', () => {
      clearTimeout(guard);
      answered();
      resolve({ response: Buffer.concat(received).toString('latin1'), errors, written });
    });
    const write = async (from: number, to: number) => {
      for (let at = from; at < to && !socket.destroyed; at += 16 * 1024) {
        const chunk = body.subarray(at, Math.min(at + 16 * 1024, to));
        const flushed = socket.write(chunk);
        written += chunk.length;
        if (!flushed) await new Promise<void>((done) => (socket.once('drain', done), socket.once('close', done)));
      }
    };
    socket.on('connect', () => {
      void (async () => {
        socket.write(head);
        await write(0, beforeAnswer);
        await answer;
        await write(beforeAnswer, body.length);
        // Everything sent (the answer came long ago): the client's side is done too.
        if (!socket.destroyed) socket.end();
      })();
    });
  });
}

const TWO_MB = 2 * 1024 * 1024;

function jsonBody(): Buffer {
  return Buffer.from(JSON.stringify({ username: 'alice', password: 'x'.repeat(TWO_MB) }));
}

function expect413(exchange: Exchange, body: Buffer) {
  expect({ errors: exchange.errors, written: exchange.written }, exchange.response.slice(0, 200)).toEqual({ errors: [], written: body.length });
  expect(exchange.response).toMatch(/^HTTP\/1\.1 413 /);
  expect(exchange.response).toContain('"error_code":"PAYLOAD_TOO_LARGE"');
  expect(exchange.response.toLowerCase()).toContain('connection: close');
  expect(exchange.written).toBe(body.length);
}

describe('an over-limit body: the client reads the 413', () => {
  it('JSON with a Content-Length over the limit, to /api/integration/sign_up', async () => {
    t = await startTestApp();
    const app = await createApplication(t);
    const { port } = new URL(await t.http.listen({ port: 0, host: '127.0.0.1' }));
    const body = jsonBody();
    const head =
      `POST /api/integration/sign_up HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `x-api-key: ${app.headers['x-api-key']}\r\nx-api-secret: ${app.headers['x-api-secret']}\r\nContent-Length: ${body.length}\r\n\r\n`;
    expect413(await sendWhileWriting(Number(port), head, body, 64 * 1024), body);
  });

  it('JSON sent chunked (no Content-Length) past the limit', async () => {
    t = await startTestApp();
    const app = await createApplication(t);
    const { port } = new URL(await t.http.listen({ port: 0, host: '127.0.0.1' }));
    const json = jsonBody();
    // One chunk per 16 KiB of JSON, then the last chunk; the server answers once past 1 MiB.
    const chunks: Buffer[] = [];
    for (let at = 0; at < json.length; at += 16 * 1024) {
      const piece = json.subarray(at, at + 16 * 1024);
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('0\r\n\r\n'));
    const body = Buffer.concat(chunks);
    const head =
      `POST /api/integration/sign_up HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `x-api-key: ${app.headers['x-api-key']}\r\nx-api-secret: ${app.headers['x-api-secret']}\r\nTransfer-Encoding: chunked\r\n\r\n`;
    expect413(await sendWhileWriting(Number(port), head, body, 1280 * 1024), body);
  });

  it('a multipart upload whose file is over GATEHOUSE_MAX_UPLOAD_BYTES', async () => {
    t = await startTestApp({ maxUploadBytes: 64 * 1024 });
    const app = await createApplication(t);
    const { port } = new URL(await t.http.listen({ port: 0, host: '127.0.0.1' }));
    const form = multipartBody([
      ['name', 'big.bin'],
      ['is_public', 'true'],
      ['store_encrypted', 'false'],
      ['file', { content: randomBytes(TWO_MB) }],
    ]);
    const head =
      `POST /api/admin/files HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${form.headers['content-type']}\r\n` +
      `Authorization: Bearer ${app.credentials.admin_api_key}\r\nContent-Length: ${form.payload.length}\r\n\r\n`;
    expect413(await sendWhileWriting(Number(port), head, form.payload, 256 * 1024), form.payload);
  });
});

describe('the lingering is bounded', () => {
  it('a client sending far more than the bound after the answer is cut off once past it', async () => {
    t = await startTestApp();
    const app = await createApplication(t);
    const { port } = new URL(await t.http.listen({ port: 0, host: '127.0.0.1' }));
    const body = Buffer.alloc(4 * DEFAULT_LINGER.maxBytes, 0x20);
    const head =
      `POST /api/integration/sign_up HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `x-api-key: ${app.headers['x-api-key']}\r\nx-api-secret: ${app.headers['x-api-secret']}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const exchange = await sendWhileWriting(Number(port), head, body, 64 * 1024);
    expect(exchange.response).toMatch(/^HTTP\/1\.1 413 /);
    // The server stopped reading past the bound: the client could not hand over the whole body.
    expect(exchange.written).toBeLessThan(body.length);
    expect(exchange.written).toBeGreaterThan(DEFAULT_LINGER.maxBytes);
    expect(exchange.errors.some((e) => e === 'EPIPE' || e === 'ECONNRESET')).toBe(true);
  });

  it('a client that stalls after the answer is closed once the time bound passes', async () => {
    const server = Fastify({ bodyLimit: 1024 });
    lingeringClose(server, { maxBytes: DEFAULT_LINGER.maxBytes, maxMs: 200 });
    server.post('/', async () => ({ ok: true }));
    const serverSide = new Promise<void>((done) => server.server.once('connection', (s: Socket) => s.once('close', () => done())));
    const { port } = new URL(await server.listen({ port: 0, host: '127.0.0.1' }));
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    try {
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.on('error', () => undefined);
      // Announces 1 MiB, sends 2 KiB (over the limit) and then nothing more, never closing.
      socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024}\r\n\r\n`);
      socket.write(Buffer.alloc(2048, 0x20));
      // The server lets go of the connection on its own (without the time bound it would hold it).
      await serverSide;
      expect(Buffer.concat(received).toString('latin1')).toMatch(/^HTTP\/1\.1 413 /);
    } finally {
      socket.destroy();
      await server.close();
    }
  });
});
