// What every CI command shares: where the server is and the admin key (options, else the
// environment), --json, and how results are written (stdout: the result; stderr: the rest).
import { createAdminApi, type AdminApi } from './admin-api.js';
import { UsageError } from './cli-errors.js';

export const commonOptions = {
  url: { type: 'string' },
  'admin-key': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export interface CommonValues {
  url?: string | undefined;
  'admin-key'?: string | undefined;
  json?: boolean | undefined;
}

export function connect(values: CommonValues): AdminApi {
  const url = values.url ?? process.env['GATEHOUSE_URL'];
  const key = values['admin-key'] ?? process.env['GATEHOUSE_ADMIN_API_KEY'];
  if (!url) throw new UsageError('no server URL: pass --url or set GATEHOUSE_URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the server URL is not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`the server URL must be http:// or https://, got ${url}`);
  if (!key) throw new UsageError('no admin API key: pass --admin-key or set GATEHOUSE_ADMIN_API_KEY');
  return createAdminApi(url, key);
}

/** The command's result on stdout: one JSON line with --json, the human line otherwise. */
export function result(values: CommonValues, json: unknown, human: string): void {
  process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${human}\n`);
}

/** A diagnostic on stderr (never mixed into the result). */
export const note = (line: string): void => void process.stderr.write(`${line}\n`);

/** A positive number of seconds from an option, or the default. */
export function seconds(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${option} must be a positive number of seconds, got ${value}`);
  return n;
}
