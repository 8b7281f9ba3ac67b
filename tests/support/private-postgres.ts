// A PostgreSQL cluster of the test's own, on a free loopback port, that the test may stop and
// start under a running server (the shared one at 5432 is never touched). initdb refuses to run
// as root, so as root the cluster belongs to the `postgres` user.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the server goes at once, as a crash or a pulled cable would take it. */
  stopImmediately(): Promise<void>;
  remove(): Promise<void>;
}

export const privatePostgresMissing = (): string | null => (existsSync(join(POSTGRES_BIN, 'initdb')) ? null : `no PostgreSQL binaries in ${POSTGRES_BIN}`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-private-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(POSTGRES_BIN, tool), ...args]) : run(join(POSTGRES_BIN, tool), args);
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
