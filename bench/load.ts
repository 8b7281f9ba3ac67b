// HTTP load from this process with autocannon: a fixed number of connections, each sending its
// next request as soon as the last one is answered, for a fixed time.
import { createHistogram } from 'node:perf_hooks';
import { inspect } from 'node:util';
import autocannon from 'autocannon';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** http://host:port, no trailing slash. */
  baseUrl: string;
  connections: number;
  durationSeconds: number;
  /** The requests to send, taken in turn (each connection starts at a different one), or made one by one (the nth request). */
  requests: LoadRequest[] | ((n: number) => LoadRequest);
  /** Status every response must have (or one of them); any other makes the run fail. */
  expectStatus: number | number[];
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  mean: number;
  requests: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
}

/** Runs the load and fails loudly if any answer was not the expected one: a fast error is no result. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { requests } = options;
  if (Array.isArray(requests) && requests.length === 0) throw new Error('no requests to send');
  const nth = Array.isArray(requests) ? (n: number) => requests[n % requests.length] as LoadRequest : requests;
  const accepted = Array.isArray(options.expectStatus) ? options.expectStatus : [options.expectStatus];
  let next = 0;
  // autocannon's own histogram keeps whole milliseconds; ours keeps microseconds, which matters
  // when answers take one or two milliseconds.
  const latencyMicros = createHistogram();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        duration: options.durationSeconds,
        requests: [
          {
            setupRequest: (request) => {
              const r = nth(next++);
              return { ...request, method: r.method, path: r.path, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) };
            },
          },
        ],
      },
      (error: unknown, done: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(inspect(error))) : resolve(done)),
    );
    // The listener's arguments end with the response time in milliseconds (fractional).
    (instance as NodeJS.EventEmitter).on('response', (...args: unknown[]) => {
      const ms = args[args.length - 1];
      if (typeof ms === 'number') latencyMicros.record(Math.max(1, Math.round(ms * 1000)));
    });
  });
  const answered = result['2xx'] + result.non2xx;
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat?.count ?? 0;
  const expected = accepted.reduce((sum, code) => sum + (statuses[`${code}`] ?? 0), 0);
  if (result.errors > 0 || expected !== answered || answered === 0) {
    const path = nth(0).path;
    throw new Error(`load on ${path}: ${answered} answers (${JSON.stringify(statuses)}), ${result.errors} errors, ${result.timeouts} timeouts; expected every answer ${accepted.join(' or ')}`);
  }
  return {
    requestsPerSecond: answered / result.duration,
    p50: latencyMicros.percentile(50) / 1000,
    p99: latencyMicros.percentile(99) / 1000,
    mean: latencyMicros.mean / 1000,
    requests: answered,
    statuses,
  };
}
