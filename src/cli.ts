#!/usr/bin/env node
// The gatehouse command. The owner commands, audit verify, backup and restore open the configured data;
// the CI commands (files, user) only speak HTTP to a running server's admin API. Each group is loaded
// on demand, so the CI commands never load the database drivers.
import { describeFailure, EXIT, UsageError } from './cli/cli-errors.js';
import { helpOf, USAGE } from './cli/usage.js';
import { gatehouseVersion } from './version.js';

const HELP_FLAGS = new Set(['--help', '-h']);

async function run(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === undefined || group === 'help' || HELP_FLAGS.has(group)) {
    process.stdout.write(`${USAGE}\n`);
    return group === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (group === '--version' || group === '-v') {
    process.stdout.write(`gatehouse ${gatehouseVersion()}\n`);
    return EXIT.OK;
  }
  // `gatehouse <group> [command] --help`: that group's part of the usage.
  if (argv.slice(1).some((arg) => HELP_FLAGS.has(arg))) {
    const help = helpOf(group);
    if (help === null) throw new UsageError(`unknown command: ${group}`);
    process.stdout.write(`${help}\n`);
    return EXIT.OK;
  }
  if (group === 'owner') {
    const run = (await import('./cli/owner-commands.js')).ownerCommands[command ?? ''];
    if (run !== undefined) return run(rest);
  }
  if (group === 'audit') {
    const run = (await import('./cli/audit-command.js')).auditCommands[command ?? ''];
    if (run !== undefined) return run(rest);
  }
  if (group === 'files') {
    const run = (await import('./cli/files-commands.js')).fileCommands[command ?? ''];
    if (run !== undefined) return run(rest);
  }
  if (group === 'backup' || group === 'restore') return (await import('./cli/backup-commands.js')).backupCommands[group]!(argv.slice(1));
  if (group === 'license-file') {
    const run = (await import('./cli/license-file-command.js')).licenseFileCommands[command ?? ''];
    if (run !== undefined) return run(rest);
  }
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
