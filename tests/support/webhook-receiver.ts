// A webhook receiver on loopback for tests: answers each delivery with the next scripted answer
// (a fallback's once the script runs out) and keeps what it received, headers and raw body.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers for the next deliveries, in order. */
  script(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

/**
 * Starts a receiver at `path`; once the script runs out, `fallback` answers (200 `ok` by default).
 */
export async function startReceiver(path = '/hook', fallback: (r: Received) => ScriptedAnswer = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const received: Received[] = [];
  const answers: ScriptedAnswer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const answer = answers.shift() ?? fallback(r);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    script: (...more) => void answers.push(...more),
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/**
 * What `secret` verifies of a delivery, with the standardwebhooks library, as of the delivery's
 * own webhook-timestamp (the tests' clock is not the wall clock the library reads).
 */
export function verifyDelivery(secret: string, r: Received): unknown {
  const at = Number(r.headers['webhook-timestamp']) * 1000;
  const realNow = Date.now;
  Date.now = () => at;
  try {
    return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  } finally {
    Date.now = realNow;
  }
}
