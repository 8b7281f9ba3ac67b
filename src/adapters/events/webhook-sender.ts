// Connects to the very address it checked, so no second lookup can be steered elsewhere (DNS
// rebinding); TLS and Host still name the URL's host (docs/api.md, "Server-side request
// forgery"; docs/choices.md, Webhooks).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DomainError } from '../../domain/errors.js';
import { addressRefusal, parseWebhookUrl, type WebhookUrl } from '../../domain/webhook-address.js';
import { ATTEMPT_BODY_BYTES, DELIVERY_TIMEOUT_MS } from '../../domain/webhook-retries.js';
import type { SendResult, WebhookSender } from '../../application/ports/webhook-sender.js';
import { createDnsResolver, RESOLVE_TIMEOUT_MS, type ResolvedAddress, type Resolver } from './name-resolver.js';
import { signedHeaders } from './webhook-signature.js';

export type { ResolvedAddress, Resolver } from './name-resolver.js';

export interface WebhookSenderOptions {
  /** GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE: http:// and non-public addresses allowed. */
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Resolves names; DNS with a deadline by default (adapters/events/name-resolver.ts). */
  resolve?: Resolver;
  /** The default resolver's name servers (the system's when absent). */
  dnsServers?: string[];
}

const ALLOW_PRIVATE = 'GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1';

/** The refusal; when the flag would lift it, the message names the flag (a receiver on one's own network). */
const refused = (why: string, lifted = false) =>
  new DomainError('WEBHOOK_URL_REFUSED', lifted ? `URL ${why}; for a receiver on your own network, start the server with ${ALLOW_PRIVATE}` : `URL ${why}`);

interface Target {
  url: WebhookUrl;
  address: ResolvedAddress;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const resolve = options.resolve ?? createDnsResolver({ timeoutMs: RESOLVE_TIMEOUT_MS, ...(options.dnsServers ? { servers: options.dnsServers } : {}) });
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;

  /** The URL and the one address to connect to, both checked; throws WEBHOOK_URL_REFUSED. */
  async function target(raw: string): Promise<Target> {
    const url = parseWebhookUrl(raw, options.allowPrivate);
    if ('refused' in url) throw refused(url.refused, url.private);
    if (url.literal) return { url, address: { address: url.host, family: url.host.includes(':') ? 6 : 4 } };
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(url.host);
    } catch {
      throw refused(`host ${url.host} does not resolve`);
    }
    if (addresses.length === 0) throw refused(`host ${url.host} does not resolve`);
    if (!options.allowPrivate) {
      // Every address, not just the first: a name with one public and one private address could
      // otherwise reach the private one on a later lookup by someone else.
      for (const a of addresses) {
        const why = addressRefusal(a.address);
        if (why !== null) throw refused(`host ${url.host} resolves to a ${why} address`, true);
      }
    }
    return { url, address: addresses[0] as ResolvedAddress };
  }

  return {
    async checkUrl(url) {
      await target(url);
    },

    async send(message) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let t: Target;
      try {
        t = await target(message.url);
      } catch (error) {
        return { statusCode: null, retryAfter: null, latencyMs: elapsed(), error: (error as Error).message, responseBody: null };
      }
      const headers = signedHeaders(message.secrets, message.id, Math.floor(message.at / 1000), message.body);
      return post(t, headers, message.body, timeoutMs, elapsed);
    },
  };
}

/** The lookup a connection makes, answered with the checked address whatever it asks. */
function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  }) as LookupFunction;
}

function post(t: Target, headers: Record<string, string>, body: string, timeoutMs: number, elapsed: () => number): Promise<SendResult> {
  return new Promise((done) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done({ ...result, latencyMs: elapsed() });
    };
    const failed = (error: string) => finish({ statusCode: null, retryAfter: null, error, responseBody: null });
    const send = t.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      host: t.url.host,
      port: t.url.port,
      path: t.url.path,
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Gatehouse-Webhooks/1' },
      lookup: pinnedLookup(t.address),
      // A connection of its own: a pooled one could have been opened to another address.
      agent: false,
    });
    const timer = setTimeout(() => {
      failed(`no answer within ${timeoutMs / 1000} s`);
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => failed(error.code ? `${error.code}: ${error.message}` : error.message));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = () => {
        const retryAfter = res.headers['retry-after'];
        finish({
          statusCode: res.statusCode ?? null,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          error: null,
          responseBody: Buffer.concat(chunks).subarray(0, ATTEMPT_BODY_BYTES).toString('utf8'),
        });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // The rest of a long answer is not waited for.
        if (size >= ATTEMPT_BODY_BYTES) answer();
      });
      res.on('end', answer);
      res.on('error', answer);
    });
    req.end(body);
  });
}
