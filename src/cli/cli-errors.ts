// How the gatehouse command fails: every failure it reports is one line on stderr and one of the
// exit codes below (documented in docs/cli.md, "CI command line"), never a stack trace.
import { GatehouseError, InvalidApiCredentialsError, NotFoundError } from '../client/errors.js';

export const EXIT = {
  OK: 0,
  /** The server refused the request, processing FAILED, a download did not verify, the server was unreachable. */
  FAILURE: 1,
  /** Bad command line: unknown command or option, a missing argument, no URL or admin key. */
  USAGE: 2,
  /** --wait gave up: the file was still PENDING at --timeout. */
  TIMEOUT: 3,
  /** The server refused the admin API key. */
  AUTH: 4,
  /** No such file (by name or id) or user. */
  NOT_FOUND: 5,
} as const;

export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(EXIT.USAGE, message);
  }
}

/** The exit code and the one line to print for any error the commands may meet. */
export function describeFailure(error: unknown): { exitCode: number; message: string } {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  if (error instanceof InvalidApiCredentialsError) {
    return { exitCode: EXIT.AUTH, message: `the server refused the admin API key (${error.status} ${error.code}): check --admin-key or GATEHOUSE_ADMIN_API_KEY` };
  }
  if (error instanceof GatehouseError) {
    const fields = error.fieldErrors.map((f) => `${f.field}: ${f.message}`).join('; ');
    const text = `${error.message} (${error.status} ${error.code})${fields && !error.message.includes(fields) ? ` [${fields}]` : ''}`;
    return { exitCode: error instanceof NotFoundError ? EXIT.NOT_FOUND : EXIT.FAILURE, message: text };
  }
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return { exitCode: EXIT.USAGE, message: (error as Error).message };
  return { exitCode: EXIT.FAILURE, message: (error as Error)?.message ?? String(error) };
}
