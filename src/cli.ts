#!/usr/bin/env node
// The gatehouse command. `owner create` opens the configured database (the server's own
// configuration); the CI commands (files, user) only speak HTTP to a running server's admin API.
// Each group is loaded on demand, so the CI commands never load the database drivers.
import { describeFailure, EXIT, UsageError } from './cli/cli-errors.js';

const USAGE = `usage:
  gatehouse owner create --email EMAIL --password PASSWORD
      Creates an owner in the configured database; prints {"owner": {...}, "token": "..."}.

  gatehouse files push <path> [--name NAME] [--public] [--encrypted] [--wait] [--timeout S] [--interval S]
      Creates or replaces the file NAME (default: the path's file name) from <path>;
      --wait polls until it is processed (COMPLETED: exit 0; FAILED: 1; still PENDING at --timeout, default 600: 3).
  gatehouse files list
  gatehouse files pull <name|id> [-o FILE|-] [--key BASE64]
      Downloads to FILE (default: the file's name; - for stdout), verified against its sha256;
      decrypts an encrypted file with --key or GATEHOUSE_FILES_ENCRYPTION_KEY.
  gatehouse files rm <name|id>
  gatehouse user <username|license code>

  CI commands take --url URL (or GATEHOUSE_URL), --admin-key KEY (or GATEHOUSE_ADMIN_API_KEY),
  and --json (the result as one JSON line on stdout).
  Exit codes: 0 ok, 1 failure, 2 usage, 3 --wait timed out, 4 admin key refused, 5 not found.`;

async function run(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === undefined || group === 'help' || group === '--help' || group === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return group === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (group === 'owner' && command === 'create') return (await import('./cli/owner-create.js')).ownerCreate(rest);
  if (group === 'files') {
    const run = (await import('./cli/files-commands.js')).fileCommands[command ?? ''];
    if (run !== undefined) return run(rest);
  }
  if (group === 'user') return (await import('./cli/user-command.js')).userCommand(argv.slice(1));
  throw new UsageError(`unknown command: ${argv.slice(0, 2).join(' ')}`);
}

/** Exits once stdout has taken everything written to it (pipes may be asynchronous). */
const exitAfterFlush = (code: number) => process.stdout.write('', () => process.exit(code));

run(process.argv.slice(2)).then(exitAfterFlush, (error: unknown) => {
  const { exitCode, message } = describeFailure(error);
  process.stderr.write(`gatehouse: ${message}\n${exitCode === EXIT.USAGE ? `${USAGE}\n` : ''}`);
  exitAfterFlush(exitCode);
});
