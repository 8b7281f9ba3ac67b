// The Python verifier printed in docs/signing.md ("A verifier in Python"), run as printed against
// every case of docs/signing-vectors.json, so the page cannot drift from the vectors. It needs
// python3 with the `cryptography` package; without them the test is skipped and says why, except
// in CI (GATEHOUSE_REQUIRE_POSTGRES_TESTS, where .ci/run installs them), where it fails.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const docs = readFileSync(new URL('../../docs/signing.md', import.meta.url), 'utf8');
const vectorsFile = fileURLToPath(new URL('../../docs/signing-vectors.json', import.meta.url));
const driver = fileURLToPath(new URL('./check_vectors.py', import.meta.url));
const vectors = JSON.parse(readFileSync(vectorsFile, 'utf8')) as {
  response_cases: Array<{ name: string; download: boolean; response: { status: number }; expected: { valid: boolean; failure?: string } }>;
  request_cases: Array<{ name: string; x_signature: string; expected: { valid: boolean } }>;
  license_file_cases: Array<{ name: string; expected: { valid: boolean; failure?: string } }>;
};

/** The code block after `<!-- marker -->` in docs/signing.md. */
function block(marker: string): string {
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`python\\n([\\s\\S]*?)\`\`\``).exec(docs);
  if (match === null) throw new Error(`docs/signing.md has no python block after <!-- ${marker} -->`);
  return match[1] as string;
}

const probe = spawnSync('python3', ['-c', 'import cryptography'], { encoding: 'utf8' });
const absent = probe.error !== undefined ? 'python3 is not installed' : probe.status !== 0 ? 'python3 has no `cryptography` package' : null;
// In CI nothing may skip: there the test runs and fails loudly.
const missing = process.env['GATEHOUSE_REQUIRE_POSTGRES_TESTS'] ? null : absent;
if (missing !== null) console.warn(`tests/signing/python-verifier.test.ts skipped: ${missing}`);

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-python-verifier-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function python(args: string[]): string {
  const run = spawnSync('python3', args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`python3 ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

describe.skipIf(missing !== null)(`the Python verifier of docs/signing.md${missing === null ? '' : ` (skipped: ${missing})`}`, () => {
  it('runs the worked example as printed', () => {
    const file = join(dir, 'example.py');
    writeFileSync(file, `${block('python-verifier')}\n${block('python-example')}`);
    python([file]);
  });

  it('reaches the expected verdict on every response and license file case and makes the expected signature of every request case', () => {
    const verifier = join(dir, 'verifier.py');
    writeFileSync(verifier, block('python-verifier'));
    const results = JSON.parse(python([driver, verifier, vectorsFile])) as { responses: Record<string, string>; requests: Record<string, string>; licenses: Record<string, string> };
    for (const c of vectors.response_cases) {
      // Unlike the SDK, which asks for whole files only, this verifier takes a range whose signature verifies.
      expect(results.responses[c.name], c.name).toBe(c.expected.valid ? 'valid' : c.expected.failure);
    }
    for (const c of vectors.request_cases) {
      if (c.expected.valid) expect(results.requests[c.name], c.name).toBe(c.x_signature);
      else expect(results.requests[c.name], c.name).not.toBe(c.x_signature);
    }
    expect(Object.keys(results.responses)).toHaveLength(vectors.response_cases.length);
    for (const c of vectors.license_file_cases) expect(results.licenses[c.name], c.name).toBe(c.expected.valid ? 'valid' : c.expected.failure);
    expect(Object.keys(results.licenses)).toHaveLength(vectors.license_file_cases.length);
  });
});
