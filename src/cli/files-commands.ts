// gatehouse files push | list | pull | rm: the CI side of file distribution, over the admin API.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { PassThrough, type Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createDecryptStream } from '../file-format/encrypted-file.js';
import { filesKeyBytes } from '../client/gatehouse-client.js';
import type { AdminApi, AdminFile } from './admin-api.js';
import { commonOptions, connect, note, result, seconds } from './ci-options.js';
import { CliError, EXIT, UsageError } from './cli-errors.js';
import { createProgress } from './progress.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A file by id, else by name (GET /files). */
async function resolveFile(api: AdminApi, ref: string): Promise<AdminFile> {
  const files = await api.listFiles();
  const found = files.find((f) => f.id === ref) ?? files.find((f) => f.name === ref);
  if (found === undefined) throw new CliError(EXIT.NOT_FOUND, `no file named or with id ${JSON.stringify(ref)}`);
  return found;
}

function onePositional(positionals: string[], usage: string): string {
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError(usage);
  return positionals[0] as string;
}

const describe = (f: AdminFile) =>
  `${f.name} (id ${f.id}): ${f.processing_status}${f.size_bytes === null ? '' : `, ${f.size_bytes} bytes`}${f.store_encrypted ? ', encrypted' : ''}${f.is_public ? ', public' : ''}`;

interface WaitOutcome {
  file: AdminFile;
  failure: CliError | null;
}

/** Polls until processing settles: COMPLETED with our bytes, FAILED, superseded, or the deadline. */
async function waitForProcessing(api: AdminApi, id: string, sha256: string, timeoutMs: number, intervalMs: number, quiet: boolean): Promise<WaitOutcome> {
  const started = Date.now();
  let lastNote = started;
  for (;;) {
    const file = await api.getFile(id);
    if (file.processing_status === 'COMPLETED') {
      if (file.sha256 !== null && file.sha256 !== sha256) {
        return { file, failure: new CliError(EXIT.FAILURE, `another upload of ${file.name} replaced this one before it was processed (stored sha256 ${file.sha256}, sent ${sha256})`) };
      }
      return { file, failure: null };
    }
    if (file.processing_status === 'FAILED') {
      return { file, failure: new CliError(EXIT.FAILURE, `processing of ${file.name} FAILED: ${file.processing_error ?? 'no reason given'}`) };
    }
    const elapsed = Date.now() - started;
    if (elapsed >= timeoutMs) {
      return { file, failure: new CliError(EXIT.TIMEOUT, `${file.name} is still ${file.processing_status} after ${Math.round(elapsed / 1000)} s (--timeout)`) };
    }
    if (!quiet && Date.now() - lastNote >= 10_000) {
      lastNote = Date.now();
      note(`still ${file.processing_status} after ${Math.round(elapsed / 1000)} s`);
    }
    await sleep(Math.min(intervalMs, timeoutMs - elapsed));
  }
}

async function push(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...commonOptions,
      name: { type: 'string' },
      public: { type: 'boolean' },
      encrypted: { type: 'boolean' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      interval: { type: 'string' },
    },
  });
  const path = onePositional(positionals, 'files push needs one <path>');
  const name = values.name ?? basename(path);
  const timeoutMs = seconds(values.timeout, 'timeout', 600) * 1000;
  const intervalMs = seconds(values.interval, 'interval', 1) * 1000;
  const info = await stat(path).catch(() => null);
  if (info === null || !info.isFile()) throw new UsageError(`${path} is not a readable file`);
  const api = connect(values);

  const progress = createProgress(`uploading ${name}`);
  const upload = await api.upsertByName(path, name, { isPublic: values.public === true, encrypted: values.encrypted === true }, progress.update).finally(() => progress.finish());
  note(`${upload.created ? 'created' : 'replaced'} ${describe(upload.file)}`);
  if (!values.wait) {
    result(values, upload.file, `pushed ${describe(upload.file)}`);
    return EXIT.OK;
  }
  note(`waiting for ${name} to be processed (up to ${timeoutMs / 1000} s)`);
  const outcome = await waitForProcessing(api, upload.file.id, upload.sha256, timeoutMs, intervalMs, values.json === true);
  result(values, outcome.file, `pushed ${describe(outcome.file)}`);
  if (outcome.failure !== null) throw outcome.failure;
  return EXIT.OK;
}

async function list(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: commonOptions });
  if (positionals.length > 0) throw new UsageError('files list takes no arguments');
  const files = await connect(values).listFiles();
  const rows = files.map((f) => [f.id, f.processing_status, f.size_bytes === null ? '-' : String(f.size_bytes), f.store_encrypted ? 'yes' : 'no', f.is_public ? 'yes' : 'no', f.name]);
  const table = [['ID', 'STATUS', 'SIZE', 'ENCRYPTED', 'PUBLIC', 'NAME'], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const human = table.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
  result(values, files, files.length === 0 ? 'no files' : human);
  return EXIT.OK;
}

function decodeKey(value: string): Buffer {
  try {
    return filesKeyBytes(value);
  } catch {
    throw new UsageError('the files encryption key must be the base64 of 32 bytes (--key or GATEHOUSE_FILES_ENCRYPTION_KEY)');
  }
}

/** Where `pull` writes by default: the last segment of the file's name, or its id when that is no usable file name. */
function defaultOutput(file: AdminFile): string {
  const last = (file.name.split(/[/\\]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '');
  return last === '' || last === '.' || last === '..' ? file.id : last;
}

function hashing(hash: ReturnType<typeof createHash>, counter: { bytes: number }): Transform {
  const pass = new PassThrough();
  pass.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    counter.bytes += chunk.length;
  });
  return pass;
}

async function pull(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...commonOptions, output: { type: 'string', short: 'o' }, key: { type: 'string' } } });
  const ref = onePositional(positionals, 'files pull needs one <name|id>');
  const keyText = values.key ?? process.env['GATEHOUSE_FILES_ENCRYPTION_KEY'];
  const key = keyText === undefined || keyText === '' ? null : decodeKey(keyText);
  const api = connect(values);
  const file = await resolveFile(api, ref);
  if (file.storage_status !== 'STORED') throw new CliError(EXIT.NOT_FOUND, `${file.name} has no stored contents yet (${file.processing_status})`);
  const decrypt = file.store_encrypted && key !== null;
  if (file.store_encrypted && key === null) note(`${file.name} is stored encrypted: writing it as stored (pass --key or set GATEHOUSE_FILES_ENCRYPTION_KEY to decrypt)`);

  const toStdout = values.output === '-';
  const output = toStdout ? '-' : (values.output ?? defaultOutput(file));
  // Written beside the target and renamed once complete and verified: never a partial file under its name.
  const temp = toStdout ? null : `${output}.partial-${randomBytes(6).toString('hex')}`;
  const hash = createHash('sha256');
  const counter = { bytes: 0 };
  const sink: Writable = temp === null ? process.stdout : createWriteStream(temp, { flags: 'wx' });
  try {
    const stored = await api.download(file.id);
    await pipeline([stored, ...(decrypt ? [createDecryptStream(key)] : []), hashing(hash, counter), sink], { end: temp !== null });
    const digest = hash.digest('hex');
    // The File's sha256 is that of the bytes as uploaded: it checks plain and decrypted output alike.
    const verifiable = !file.store_encrypted || decrypt;
    if (verifiable && file.sha256 !== null && digest !== file.sha256) {
      throw new CliError(EXIT.FAILURE, `the downloaded bytes of ${file.name} do not match its sha256 (${digest}, expected ${file.sha256}); it may have been replaced meanwhile, try again`);
    }
    if (temp !== null) await rename(temp, output);
    const summary = { id: file.id, name: file.name, output, bytes: counter.bytes, sha256: digest, decrypted: decrypt, verified: verifiable && file.sha256 !== null };
    if (toStdout) note(`pulled ${file.name}: ${counter.bytes} bytes, sha256 ${digest}`);
    else result(values, summary, `pulled ${file.name} to ${output} (${counter.bytes} bytes, sha256 ${digest}${summary.verified ? ', verified' : ''})`);
    return EXIT.OK;
  } catch (error) {
    if (temp !== null) await rm(temp, { force: true });
    throw error;
  }
}

async function remove(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: commonOptions });
  const ref = onePositional(positionals, 'files rm needs one <name|id>');
  const api = connect(values);
  const file = await resolveFile(api, ref);
  await api.deleteFile(file.id);
  result(values, { deleted: { id: file.id, name: file.name } }, `deleted ${file.name} (id ${file.id})`);
  return EXIT.OK;
}

export const fileCommands: Record<string, (args: string[]) => Promise<number>> = { push, list, pull, rm: remove };
