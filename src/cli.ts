#!/usr/bin/env node
// The gatehouse command. The owner commands, backup and restore open the configured data (the
// server's own configuration); the CI commands (files, user) only speak HTTP to a running
// server's admin API. Each group is loaded on demand, so the CI commands never load the database
// drivers.
import { describeFailure, EXIT, UsageError } from './cli/cli-errors.js';

const USAGE = `usage:
  gatehouse owner create --email EMAIL [--init]
      Creates an owner in the server's database; prints {"owner": {...}, "token": "..."}.
      Refuses to create a new SQLite database unless --init.
  gatehouse owner login --email EMAIL
      Checks the owner's password and prints a new console token, as owner create does.
  gatehouse owner list [--json]
  gatehouse owner reset-password --email EMAIL
      Sets a new password (no old one needed) and lifts a sign-in lock.
  gatehouse owner unlock --email EMAIL
      Lifts the sign-in locks on the owner's account, at every address; the password stays.
  gatehouse backup <file>
      Copies the SQLite database (consistent while the server runs) to <file> and the file
      contents to <file>.blobs/.
  gatehouse restore <file>
      With the server stopped: replaces the data folder's database and files with the backup's
      (what was there is moved aside into the data folder).
  The owner commands ask for the password on the terminal, or take it from --password-stdin
  (or --password PASSWORD, visible in process lists). They use the server's configuration:
  GATEHOUSE_DATA_DIR (default ./data of the current folder), DATABASE_URL, GATEHOUSE_MASTER_KEY.

  gatehouse files push <path> [--name NAME] [--public] [--encrypted] [--wait] [--timeout S] [--interval S]
      Creates or replaces the file NAME (default: the path's file name) from <path>;
      --wait polls until it is processed (COMPLETED: exit 0; FAILED: 1; still PENDING at --timeout, default 600: 3).
  gatehouse files list
  gatehouse files pull <name|id> [-o FILE|-] [--key BASE64]
      Downloads to FILE (default: the file's name; - for stdout), verified against its sha256;
      decrypts an encrypted file with --key or GATEHOUSE_FILES_ENCRYPTION_KEY.
  gatehouse files rm <name|id>
  gatehouse user <username|license code>
  gatehouse license <code>
      The license (any case): what it grants, whether and by whom it was used, banned.

  CI commands take --url URL (or GATEHOUSE_URL), --admin-key KEY (or GATEHOUSE_ADMIN_API_KEY),
  and --json (the result as one JSON line on stdout).
  Exit codes: 0 ok, 1 failure, 2 usage, 3 --wait timed out, 4 admin key refused, 5 not found.`;

async function run(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === undefined || group === 'help' || group === '--help' || group === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return group === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (group === 'owner') {
    const run = (await import('./cli/owner-commands.js')).ownerCommands[command ?? ''];
    if (run !== undefined) return run(rest);
  }
  if (group === 'files') {
    const run = (await import('./cli/files-commands.js')).fileCommands[command ?? ''];
    if (run !== undefined) return run(rest);
  }
  if (group === 'backup' || group === 'restore') return (await import('./cli/backup-commands.js')).backupCommands[group]!(argv.slice(1));
  if (group === 'user') return (await import('./cli/user-command.js')).userCommand(argv.slice(1));
  if (group === 'license') return (await import('./cli/license-command.js')).licenseCommand(argv.slice(1));
  throw new UsageError(`unknown command: ${argv.slice(0, 2).join(' ')}`);
}

/** Exits once stdout has taken everything written to it (pipes may be asynchronous). */
const exitAfterFlush = (code: number) => process.stdout.write('', () => process.exit(code));

run(process.argv.slice(2)).then(exitAfterFlush, (error: unknown) => {
  const { exitCode, message } = describeFailure(error);
  process.stderr.write(`gatehouse: ${message}\n${exitCode === EXIT.USAGE ? `${USAGE}\n` : ''}`);
  exitAfterFlush(exitCode);
});
