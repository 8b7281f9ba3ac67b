// Where the owner commands take a password from: --password (visible in process lists, so
// documented as the least safe), --password-stdin (scripts), else a prompt on the terminal.
import { CliError, EXIT, UsageError } from './cli-errors.js';

export const passwordOptions = {
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
} as const;

export interface PasswordValues {
  password?: string | undefined;
  'password-stdin'?: boolean | undefined;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing newline is the end of the line `echo` or a file adds, not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Typed ahead of a prompt (a second line pasted at once): kept for the next prompt. */
let typedAhead = '';

/** One line from the terminal, which the caller has put in raw mode (no echo). */
function prompt(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  input.setEncoding('utf8');
  return new Promise((done, fail) => {
    let line = '';
    const finish = (error: Error | null, rest: string) => {
      typedAhead = rest;
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) fail(error);
      else done(line);
    };
    const onData = (text: string) => {
      const chars = [...text];
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i] as string;
        if (ch === '\r' || ch === '\n')
          return finish(
            null,
            chars
              .slice(i + 1)
              .join('')
              .replace(/^\n/, ''),
          );
        if (ch === '\u0003' || ch === '\u0004') return finish(new CliError(EXIT.FAILURE, 'cancelled'), '');
        if (ch === '\u007f' || ch === '\b') line = [...line].slice(0, -1).join('');
        else line += ch;
      }
    };
    input.on('data', onData);
    input.resume();
    if (typedAhead !== '') onData(typedAhead);
  });
}

/**
 * The password the command line gives. `confirm` (a new password) asks twice at the prompt.
 */
export async function readPassword(values: PasswordValues, confirm: boolean): Promise<string> {
  if (values.password !== undefined && values['password-stdin']) throw new UsageError('pass --password or --password-stdin, not both');
  if (values.password !== undefined) return values.password;
  if (values['password-stdin']) return readStdin();
  if (!process.stdin.isTTY) throw new UsageError('no password: pass --password-stdin and pipe it in, or run on a terminal to be asked');
  // Raw (no echo) before the first prompt shows and until the last answer is read, so nothing
  // typed ahead of a prompt, or between two, is ever echoed.
  process.stdin.setRawMode(true);
  try {
    const first = await prompt('Password: ');
    if (confirm && (await prompt('Password again: ')) !== first) throw new UsageError('the two passwords differ');
    return first;
  } finally {
    process.stdin.setRawMode(false);
  }
}
