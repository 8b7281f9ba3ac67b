// What `node dist/src/main.js` (npm start) accepts on its command line: --help and --version
// answer and exit; the server itself is configured only by environment variables.
import { gatehouseVersion } from './version.js';

const HELP = `usage: npm start  (or: node dist/src/main.js)
Starts the Gatehouse server. It is configured by environment variables, all optional
(docs/configuration.md, "Configuration"; .env.example lists each with its default):
  HOST, PORT                 listen address (127.0.0.1, 8080)
  GATEHOUSE_DATA_DIR         SQLite database, local files and master key (./data)
  DATABASE_URL               postgres://... selects PostgreSQL instead of SQLite
  GATEHOUSE_BLOB_STORE       local or s3 (local), with S3_BUCKET and the other S3_* variables
  GATEHOUSE_MASTER_KEY       base64 of 32 bytes (generated into the data folder)
  GATEHOUSE_SHUTDOWN_GRACE_SECONDS  how long a stop waits for uploads and jobs (30)
Options:
  --help, -h      this text
  --version, -v   the version
Owners, backups and CI commands: npm run --silent gatehouse -- --help`;

/** Handles the command line: the exit code when it asked for an answer instead of a start, else null. */
export function answerCommandLine(args: string[]): number | null {
  if (args.length === 0) return null;
  const [arg] = args;
  if (args.length === 1 && (arg === '--help' || arg === '-h')) {
    console.log(HELP);
    return 0;
  }
  if (args.length === 1 && (arg === '--version' || arg === '-v')) {
    console.log(`gatehouse ${gatehouseVersion()}`);
    return 0;
  }
  console.error(`gatehouse: unknown argument ${JSON.stringify(arg)}; the server takes its settings from environment variables (--help)`);
  return 2;
}
