// HTTP load from this process with autocannon: a fixed number of connections, each sending its
// next request as soon as the last one is answered, for a fixed time.
import { createHistogram } from 'node:perf_hooks';
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
  /** The requests to send, taken in turn (each connection starts at a different one). */
  requests: LoadRequest[];
  /** Status every response must have; any other makes the run fail. */
  expectStatus: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  mean: number;
  requests: number;
}

/** Runs the load and fails loudly if any answer was not the expected one: a fast error is no result. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { requests } = options;
  if (requests.length === 0) throw new Error('no requests to send');
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
              const r = requests[next++ % requests.length] as LoadRequest;
              return { ...request, method: r.method, path: r.path, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) };
            },
          },
        ],
      },
      (error: unknown, done: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
    // The listener's arguments end with the response time in milliseconds (fractional).
    (instance as NodeJS.EventEmitter).on('response', (...args: unknown[]) => {
      const ms = args[args.length - 1];
      if (typeof ms === 'number') latencyMicros.record(Math.max(1, Math.round(ms * 1000)));
    });
  });
  const answered = result['2xx'] + result.non2xx;
  const expected = result.statusCodeStats?.[`${options.expectStatus}`]?.count ?? 0;
  if (result.errors > 0 || expected !== answered || answered === 0) {
    const codes = JSON.stringify(result.statusCodeStats ?? {});
    throw new Error(`load on ${requests[0]?.path}: ${answered} answers (${codes}), ${result.errors} errors, ${result.timeouts} timeouts; expected every answer ${options.expectStatus}`);
  }
  return {
    requestsPerSecond: answered / result.duration,
    p50: latencyMicros.percentile(50) / 1000,
    p99: latencyMicros.percentile(99) / 1000,
    mean: latencyMicros.mean / 1000,
    requests: answered,
  };
}
