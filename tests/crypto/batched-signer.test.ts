// The batched Ed25519 signer: each answer's signature is the one node:crypto makes for its own key
// and message, whatever else shares its batch (other keys, a key it cannot use, a key that cannot
// reach the worker at all), across more keys than a worker keeps, and it never keeps the process
// alive (checked in a child process running the transpiled module).
import { spawn } from 'node:child_process';
import { createSecretKey, generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createBatchedSigner } from '../../src/adapters/crypto/batched-signer.js';

const pairs = Array.from({ length: 3 }, () => generateKeyPairSync('ed25519'));
const verifies = (publicKey: KeyObject, message: string, signature: string) => verify(null, Buffer.from(message, 'utf8'), publicKey, Buffer.from(signature, 'base64'));

describe('batched signer', () => {
  it('signs each message under its own key, many keys in one batch and across batches', async () => {
    const signer = createBatchedSigner(2);
    const messages = Array.from({ length: 300 }, (_, i) => `answer ${i} é ✓`);
    const signatures = await Promise.all(messages.map((m, i) => signer.sign(pairs[i % 3]!.privateKey, m)));
    messages.forEach((m, i) => expect(verifies(pairs[i % 3]!.publicKey, m, signatures[i]!)).toBe(true));
    // A signature under another key of the batch is not one under this key.
    expect(verifies(pairs[1]!.publicKey, messages[0]!, signatures[0]!)).toBe(false);
    // A later turn's batch, on workers that already hold the keys.
    const later = await signer.sign(pairs[2]!.privateKey, 'later');
    expect(verifies(pairs[2]!.publicKey, 'later', later)).toBe(true);
  });

  it('keeps signing right past the keys a worker holds', async () => {
    const signer = createBatchedSigner(1);
    const many = Array.from({ length: 1100 }, () => generateKeyPairSync('ed25519'));
    for (const slice of [many.slice(0, 600), many.slice(600), many.slice(0, 50)]) {
      const signatures = await Promise.all(slice.map((pair, i) => signer.sign(pair.privateKey, `m${i}`)));
      slice.forEach((pair, i) => expect(verifies(pair.publicKey, `m${i}`, signatures[i]!)).toBe(true));
    }
  });

  it('refuses only the answer whose key cannot sign; the rest of its batch is signed', async () => {
    const signer = createBatchedSigner(1);
    const [good, bad, alsoGood] = await Promise.allSettled([signer.sign(pairs[0]!.privateKey, 'a'), signer.sign(createSecretKey(Buffer.alloc(32, 7)), 'b'), signer.sign(pairs[1]!.privateKey, 'c')]);
    expect(good.status === 'fulfilled' && verifies(pairs[0]!.publicKey, 'a', good.value)).toBe(true);
    expect(bad.status).toBe('rejected');
    expect(alsoGood.status === 'fulfilled' && verifies(pairs[1]!.publicKey, 'c', alsoGood.value)).toBe(true);
  });

  it('rejects a batch that cannot reach the worker, and signs the next one', async () => {
    const signer = createBatchedSigner(1);
    await signer.sign(pairs[0]!.privateKey, 'warm'); // the worker holds this key
    const unsendable = (() => 0) as unknown as KeyObject;
    const failed = await Promise.allSettled([signer.sign(pairs[0]!.privateKey, 'x'), signer.sign(unsendable, 'y')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const after = await Promise.all([signer.sign(pairs[0]!.privateKey, 'p'), signer.sign(pairs[1]!.privateKey, 'q')]);
    expect(verifies(pairs[0]!.publicKey, 'p', after[0]) && verifies(pairs[1]!.publicKey, 'q', after[1])).toBe(true);
  });
});

describe('batched signer and the process', () => {
  let dir = '';
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it('never keeps the process alive', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gatehouse-signer-'));
    // The signer and what it imports, transpiled one by one (node 20 cannot import TypeScript).
    for (const file of ['batched-signer', 'supervised-worker']) {
      const source = await readFile(new URL(`../../src/adapters/crypto/${file}.ts`, import.meta.url), 'utf8');
      const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
      await writeFile(join(dir, `${file}.js`), outputText);
    }
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await writeFile(
      join(dir, 'child.js'),
      `import { generateKeyPairSync } from 'node:crypto';
import { createBatchedSigner } from './batched-signer.js';
const signer = createBatchedSigner(2);
const { privateKey } = generateKeyPairSync('ed25519');
const signatures = await Promise.all(['a', 'b', 'c'].map((m) => signer.sign(privateKey, m)));
process.stdout.write(String(signatures.length));
`,
    );
    const proc = spawn(process.execPath, [join(dir, 'child.js')], { cwd: dir });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    const [code, signal] = (await once(proc, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    expect({ code, signal, stderr, stdout }).toEqual({ code: 0, signal: null, stderr: '', stdout: '3' });
  });
});
