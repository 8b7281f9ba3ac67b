// The gatehouse command's help (docs/cli.md, CI command line and Owner commands): one section per
// command group. `gatehouse --help` prints them all; `gatehouse <group> --help` its own, with the
// notes that apply to it.

interface Section {
  groups: string[];
  lines: string;
  /** The note of the kind of command: local data, or a server's admin API. */
  note: 'local' | 'ci' | 'offline';
}

const SECTIONS: Section[] = [
  {
    groups: ['owner'],
    note: 'local',
    lines: `  gatehouse owner create --email EMAIL [--init]
      Creates an owner in the server's database; prints {"owner": {...}, "token": "..."}.
      Refuses to create a new SQLite database unless --init.
  gatehouse owner login --email EMAIL
      Checks the owner's password and prints a new console token, as owner create does.
  gatehouse owner list [--json]
  gatehouse owner reset-password --email EMAIL
      Sets a new password (no old one needed) and lifts a sign-in lock.
  gatehouse owner unlock --email EMAIL
      Lifts the sign-in locks on the owner's account, at every address; the password stays.`,
  },
  {
    groups: ['audit'],
    note: 'local',
    lines: `  gatehouse audit verify --application ID [--anchor FILE] [--export-head FILE] [--json]
      Recomputes the application's keyed audit chain from the database: prints OK with the
      number of entries, or the first entry changed or removed (by seq and id), rows kept out of
      the chain, or a head from --anchor the chain no longer holds, and exits 1. Once it passes,
      --export-head writes the chain's head, signed with the application's key, to keep elsewhere.
  gatehouse audit head --application ID
      Prints the chain's head, signed with the application's key (JSON), without verifying.`,
  },
  {
    groups: ['backup', 'restore'],
    note: 'local',
    lines: `  gatehouse backup <file>
      Copies the SQLite database (consistent while the server runs) to <file> and the file
      contents to <file>.blobs/.
  gatehouse restore <file>
      With the server stopped: replaces the data folder's database and files with the backup's
      (what was there is moved aside into the data folder).`,
  },
  {
    groups: ['files'],
    note: 'ci',
    lines: `  gatehouse files push <path> [--name NAME] [--public] [--encrypted] [--wait] [--timeout S] [--interval S]
      Creates or replaces the file NAME (default: the path's file name) from <path>;
      --wait polls until it is processed (COMPLETED: exit 0; FAILED: 1; still PENDING at --timeout, default 600: 3).
  gatehouse files list
  gatehouse files pull <name|id> [-o FILE|-] [--key BASE64]
      Downloads to FILE (default: the file's name; - for stdout), verified against its sha256;
      decrypts an encrypted file with --key or GATEHOUSE_FILES_ENCRYPTION_KEY.
  gatehouse files rm <name|id>`,
  },
  {
    groups: ['user'],
    note: 'ci',
    lines: `  gatehouse user <username|license code>
      Prints the application's user of that name or license code.`,
  },
  {
    groups: ['license'],
    note: 'ci',
    lines: `  gatehouse license <code>
      The license (any case): what it grants, whether and by whom it was used, banned.`,
  },
  {
    groups: ['license-file'],
    note: 'offline',
    lines: `  gatehouse license-file verify <file> --public-key KEY [--public-key KEY] [--hardware-id ID] [--application-id ID] [--json]
      Verifies an offline license file without a server, against the application's
      response_signing_public_key; prints its claims, or why it is refused (exit 1).`,
  },
];

const NOTES: Record<Section['note'], string> = {
  local: `  They ask for the password on the terminal, or take it from --password-stdin (or --password
  PASSWORD, visible in process lists), and use the server's configuration: GATEHOUSE_DATA_DIR
  (default ./data of the current folder), DATABASE_URL, GATEHOUSE_MASTER_KEY.`,
  ci: `  CI commands take --url URL (or GATEHOUSE_URL), --admin-key KEY (or GATEHOUSE_ADMIN_API_KEY),
  and --json (the result as one JSON line on stdout).`,
  offline: '  It needs no server, database or key but the public one.',
};

const EXIT_CODES = '  Exit codes: 0 ok, 1 failure, 2 usage, 3 --wait timed out, 4 admin key refused, 5 not found.';
const OPTIONS = `  gatehouse --help, gatehouse <command> --help   this text, or a command's part of it
  gatehouse --version                             the version`;

/** Every command, with the notes after the commands they are about. */
export const USAGE = [
  'usage:',
  ...SECTIONS.filter((s) => s.note === 'local').map((s) => s.lines),
  NOTES.local,
  '',
  ...SECTIONS.filter((s) => s.note !== 'local').map((s) => s.lines),
  '',
  NOTES.ci,
  EXIT_CODES,
  '',
  OPTIONS,
].join('\n');

/** The help of one command group, or null when there is no such group. */
export function helpOf(group: string): string | null {
  const section = SECTIONS.find((s) => s.groups.includes(group));
  if (section === undefined) return null;
  return ['usage:', section.lines, '', NOTES[section.note], EXIT_CODES].join('\n');
}
