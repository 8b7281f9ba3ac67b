// Issue 41, acceptance 4: no comment line in src carries a measured figure or a machine
// description (scripts/check-comments.mjs; docs/testing.md, "Comments").
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLength, checkSource, checkTree, commentLines, longComments } from '../scripts/check-comments.mjs';
import { repoRoot } from './support/server-process.js';

const rulesBroken = (text: string, fileName = 'sample.ts') => checkSource(text, fileName).map((f) => f.rule);

describe('check-comments', () => {
  it('flags measured figures, machines and benchmark sessions in comments', () => {
    for (const comment of [
      '// a lookup took 12 ms on average',
      '// the batch cost 3.7-8.5 ms of CPU',
      '/** about 40 µs of the event loop a request */',
      '// the load rose to 15,000 requests/s',
      '/*\n * AES-GCM ran at 1,100 MB/s\n */',
      '// signed answers came at 0.37 of unsigned ones',
      '// the CPU a request went 27 -> 11 us',
      '// 5% faster with the cache',
      "// about a tenth of the main thread's time",
      '// measured on this machine, side by side, three rounds each',
      '// a machine with 2 vCPUs, Intel Xeon',
      '// Measured on two cores: 4 at once',
      '// as the eighth session found',
      '// the run of 2026-11-27',
      '// logins took seven times as long',
    ]) {
      expect(rulesBroken(`${comment}\nexport const x = 1;\n`), comment).not.toEqual([]);
    }
  });

  it('passes constants and spec facts', () => {
    for (const comment of [
      '// A session ends 10 s after its last request.',
      '/** At most 1 MiB per user; 2 GiB default upload limit. */',
      '// AES-256-GCM, SHA-512 and Ed25519 (RFC 8032); ids are UUIDv7 (RFC 9562).',
      '// Answers HTTP 503 with Retry-After: 5; TypeBox schemas are JSON Schema 2020-12.',
      '// Needs Node 20.19 or later; 100 x 64 KiB of variables.',
      '// Different keys run side by side.',
      '// A file under 1 MiB gets its 100% line only.',
      '// 30 min, 2 h, 5 h, 10 h and 10 h, each delay spread by up to a tenth either way.',
    ]) {
      expect(rulesBroken(`${comment}\nexport const x = 1;\n`), comment).toEqual([]);
    }
  });

  it('reads comments only: strings, templates, regexes and JSX text are not comments', () => {
    const code = [
      "const a = 'took 12 ms // on this machine';",
      'const b = `about 40 µs /* side by side */`;',
      'const c = /\\/\\/ 15,000 requests\\/s/;',
      'const d = "0.37 of"; // a string literal above',
    ].join('\n');
    expect(checkSource(code)).toEqual([]);
    expect(commentLines(code).map(([line, text]) => [line, text])).toEqual([[4, '// a string literal above']]);
    const jsx = 'export const P = () => <p>// took 12 ms on this machine</p>; // fine\n';
    expect(checkSource(jsx, 'page.tsx')).toEqual([]);
  });

  it('reports the line of each offending comment line', () => {
    const findings = checkSource('export const x = 1;\n/**\n * Fine.\n * It took 3.5 ms.\n */\nexport const y = 2;\n');
    expect(findings).toEqual([{ line: 4, text: '* It took 3.5 ms.', rule: 'measured time' }]);
  });

  it('finds comment blocks longer than three lines, JSDoc and line comments alike', () => {
    const four = '// one\n// two\n// three\n// four\nexport const x = 1;\n';
    expect(longComments(four)).toEqual([{ line: 1, lines: 4 }]);
    expect(longComments('export const a = 1;\n/**\n * Why.\n * And why not.\n */\nexport const b = 2;\n')).toEqual([{ line: 2, lines: 4 }]);
    expect(longComments('/** Why. */\nexport const a = 1;\n// one\n// two\n// three\nexport const b = 2;\n')).toEqual([]);
    // A comment after code starts no block; code between two comments ends one.
    expect(longComments('export const a = 1; // why\n// one\n// two\n// three\nexport const b = 2;\n')).toEqual([]);
    expect(longComments('// one\n// two\nexport const a = 1;\n// three\n// four\nexport const b = 2;\n')).toEqual([]);
  });

  it('src passes: no figures, and no comment longer than three lines', () => {
    expect(checkTree(join(repoRoot, 'src'), repoRoot)).toEqual([]);
    expect(checkLength(join(repoRoot, 'src'), repoRoot)).toEqual([]);
  });
});
