// A PostgreSQL cluster of the test's own, on a free loopback port, that the test may stop and
// start under a running server (the shared one at 5432 is never touched). initdb refuses to run
// as root, so as root the cluster belongs to the `postgres` user.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Debian's binaries of the newest PostgreSQL installed (/usr/lib/postgresql/<major>/bin), or null. */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const major = majors.find((v) => existsSync(join(root, v, 'bin', 'initdb')));
  return major === undefined ? null : join(root, major, 'bin');
}
const POSTGRES_BIN = postgresBin();

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the server goes at once, as a crash or a pulled cable would take it. */
  stopImmediately(): Promise<void>;
  remove(): Promise<void>;
}

export const privatePostgresMissing = (): string | null => (POSTGRES_BIN === null ? 'no PostgreSQL server binaries in /usr/lib/postgresql/<major>/bin' : null);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = POSTGRES_BIN;
  if (bin === null) throw new Error(privatePostgresMissing() ?? 'no PostgreSQL');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-private-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const pg = (tool: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args));
  const data = join(dir, 'data');
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => void (await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']));
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stopImmediately: async () => void (await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])),
    async remove() {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
