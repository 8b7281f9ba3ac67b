// Requests pipelined on one connection (issue 39, item 20): an answer the server gives before the
// request's end has been parsed (a 404 for an unknown path, a 422 for a bad path parameter) must
// not close the connection when the request has no body, so the requests behind it are answered.
// Whether a body is still coming is read from the request's framing (Content-Length,
// Transfer-Encoding), not from whether Node has parsed its end yet.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(() => t.close());

/** Writes `raw` at once on a fresh connection and reads until `answers` responses came, or the connection closed. */
function pipeline(port: number, raw: string, answers: number): Promise<{ statuses: number[]; heads: string[]; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let text = '';
    let closed = false;
    const parse = () => {
      const heads: string[] = [];
      let rest = text;
      for (;;) {
        const end = rest.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = rest.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (rest.length < end + 4 + length) break;
        heads.push(head);
        rest = rest.slice(end + 4 + length);
      }
      return heads;
    };
    const finish = () => {
      clearTimeout(guard);
      socket.destroy();
      const heads = parse();
      resolve({ statuses: heads.map((h) => Number(h.split(' ')[1])), heads, closed });
    };
    const guard = setTimeout(finish, 10_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (parse().length >= answers) finish();
    });
    socket.on('close', () => ((closed = true), finish()));
    socket.on('error', () => undefined);
    socket.write(raw);
  });
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

describe('pipelined requests', () => {
  it('answers the request behind a synchronous 404 on the same connection', async () => {
    t = await startTestApp();
    const port = Number(new URL(await listenOnLoopback(t)).port);
    const { statuses, heads } = await pipeline(port, get('/api/no-such-route') + get('/healthz'), 2);
    expect(statuses).toEqual([404, 200]);
    expect(heads[0]).not.toMatch(/\r\nconnection: *close/i);
  });

  it('answers the requests behind a path parameter refused with 422', async () => {
    t = await startTestApp();
    const port = Number(new URL(await listenOnLoopback(t)).port);
    const bad = get('/api/integration/files/not-a-uuid/download');
    const { statuses, heads } = await pipeline(port, bad + get('/healthz') + bad + get('/healthz'), 4);
    expect(statuses).toEqual([422, 200, 422, 200]);
    expect(heads[0]).not.toMatch(/\r\nconnection: *close/i);
  });

  it('still closes after an early answer to a request whose body has not all arrived', async () => {
    t = await startTestApp();
    const port = Number(new URL(await listenOnLoopback(t)).port);
    // A body over the limit, announced but not sent: the 413 comes first, and the connection
    // cannot be reused (the rest of the body would be read as the next request).
    const head = 'POST /api/integration/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{';
    const { statuses, heads } = await pipeline(port, head, 1);
    expect(statuses).toEqual([413]);
    expect(heads[0]).toMatch(/\r\nconnection: *close/i);
  });
});
