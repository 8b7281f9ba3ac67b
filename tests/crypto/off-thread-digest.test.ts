// The worker-thread meter: the same size and sha256 as createHash whatever the chunking, bytes
// passed through unchanged, worker failures surfacing as stream errors, and no hold on the
// process. The last is checked in a child process running the pool and what it imports
// transpiled file by file (node 20 cannot import TypeScript), meters and sealers both.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { cut, feed } from '../support/stream-pieces.js';
import { createCryptoPool } from '../../src/adapters/crypto/crypto-pool.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

// Tiny batches: chunks span several of them and the in-flight bound is hit all the time.
const tiny = createCryptoPool({ maxWorkers: 2, batchBytes: 7, maxInFlightBytes: 21 });
const standard = createCryptoPool();
afterAll(() => Promise.all([tiny.terminate(), standard.terminate()]));

describe('off-thread digest meter', () => {
  it('measures like createHash over any split, empty input and empty chunks included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300, size: 'max' }), fc.array(fc.nat(), { maxLength: 12, size: 'max' }), async (bytes, cuts) => {
        const data = Buffer.from(bytes);
        const meter = tiny.meter();
        const passed = await feed(meter.stream, cut(data, cuts));
        expect(passed.equals(data)).toBe(true);
        expect(meter.result()).toEqual({ size: data.length, sha256: sha(data) });
      }),
      { numRuns: 150 },
    );
  });

  it('measures an empty stream', async () => {
    const meter = standard.meter();
    expect(await feed(meter.stream, [])).toHaveLength(0);
    expect(meter.result()).toEqual({ size: 0, sha256: sha(Buffer.alloc(0)) });
  });

  it('measures more than its in-flight bound, in chunks larger and smaller than its batches, in a pipeline', async () => {
    const data = randomBytes(11 * 1024 * 1024 + 12345);
    const pieces = cut(data, [1, 65536, 70000, 3 * 1024 * 1024, 3 * 1024 * 1024, 4 * 1024 * 1024 + 3]);
    const meter = standard.meter();
    const out: Buffer[] = [];
    await pipeline(
      Readable.from(pieces),
      meter.stream,
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          out.push(chunk);
          callback();
        },
      }),
    );
    expect(Buffer.concat(out).equals(data)).toBe(true);
    expect(meter.result()).toEqual({ size: data.length, sha256: sha(data) });
  });

  it('keeps concurrent meters apart, also when they share one worker', async () => {
    const shared = createCryptoPool({ maxWorkers: 1, batchBytes: 1000, maxInFlightBytes: 3000 });
    try {
      const inputs = Array.from({ length: 6 }, (_, i) => randomBytes(20_000 + i * 777));
      const meters = inputs.map(() => shared.meter());
      await Promise.all(meters.map((meter, i) => feed(meter.stream, cut(inputs[i] as Buffer, [5, 999, 1001, 15_000]))));
      meters.forEach((meter, i) => expect(meter.result()).toEqual({ size: (inputs[i] as Buffer).length, sha256: sha(inputs[i] as Buffer) }));
    } finally {
      await shared.terminate();
    }
  });

  it('has no result before the stream has ended', async () => {
    const meter = standard.meter();
    meter.stream.resume();
    meter.stream.write(Buffer.from('abc'));
    expect(() => meter.result()).toThrow(/not finished/);
    meter.stream.destroy();
  });

  it('fails the stream, not the process, when its worker stops; later meters get a new worker', async () => {
    const pool = createCryptoPool({ maxWorkers: 1, batchBytes: 1024, maxInFlightBytes: 4096 });
    try {
      const meter = pool.meter();
      let stopped = false;
      const endless = Readable.from(
        (async function* () {
          for (let i = 0; ; i++) {
            yield randomBytes(4096);
            // Once bytes are flowing, the worker goes away under the meter.
            if (i === 10) void pool.terminate().then(() => (stopped = true));
          }
        })(),
      );
      const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
      await expect(pipeline(endless, meter.stream, sink)).rejects.toThrow(/crypto worker stopped/);
      expect(stopped).toBe(true);

      const next = pool.meter();
      const data = randomBytes(10_000);
      await feed(next.stream, [data]);
      expect(next.result()).toEqual({ size: data.length, sha256: sha(data) });
    } finally {
      await pool.terminate();
    }
  });
});

describe('off-thread digest workers and the process', () => {
  let dir = '';
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  // Meters one stream to its end and abandons another midway, leaving the workers idle and
  // the pool open: the process must still exit on its own, with the right digest printed.
  const child = `
import { createCryptoPool } from './adapters/crypto/crypto-pool.js';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
const pool = createCryptoPool({ maxWorkers: 2 });
const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
const done = pool.meter();
await pipeline(Readable.from([Buffer.from('hello '), Buffer.from('world')]), done.stream, sink());
const sealed = pool.sealer(new Uint8Array(32));
await pipeline(Readable.from([Buffer.from('hello world')]), sealed.stream, sink());
const aborted = pool.meter();
const abortedSeal = pool.sealer(new Uint8Array(32));
const controller = new AbortController();
const failing = pipeline(Readable.from((async function* () { for (;;) yield Buffer.alloc(65536); })()), aborted.stream, sink(), { signal: controller.signal });
const failingSeal = pipeline(Readable.from((async function* () { for (;;) yield Buffer.alloc(65536); })()), abortedSeal.stream, sink(), { signal: controller.signal });
setTimeout(() => controller.abort(), 50);
await Promise.all([failing.catch(() => undefined), failingSeal.catch(() => undefined)]);
process.stdout.write(JSON.stringify([done.result(), sealed.result()]));
`;

  it('never keeps the process alive', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gatehouse-digest-'));
    // The pool and what it imports, transpiled one by one into the same layout as src/.
    for (const file of [
      'adapters/crypto/crypto-pool',
      'adapters/crypto/crypto-workers',
      'adapters/crypto/supervised-worker',
      'adapters/crypto/off-thread-digest',
      'adapters/crypto/off-thread-sealing',
      'file-format/encrypted-file',
    ]) {
      const source = await readFile(new URL(`../../src/${file}.ts`, import.meta.url), 'utf8');
      const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
      await mkdir(dirname(join(dir, file)), { recursive: true });
      await writeFile(join(dir, `${file}.js`), outputText);
    }
    await writeFile(join(dir, 'child.js'), child);
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');

    const proc = spawn(process.execPath, [join(dir, 'child.js')], { cwd: dir });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    const [code, signal] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    const measured = { size: 11, sha256: sha(Buffer.from('hello world')) };
    expect(JSON.parse(stdout)).toEqual([measured, measured]);
  });
});
