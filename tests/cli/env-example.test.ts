// .env.example (issue 13) lists every variable src/config.ts reads, each with its real default:
// the file's values, uncommented, must configure exactly what no variable at all does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { repoRoot } from '../support/server-process.js';

const example = readFileSync(join(repoRoot, '.env.example'), 'utf8');
const listed = new Map([...example.matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]));

it('lists every variable the configuration reads', () => {
  const source = readFileSync(join(repoRoot, 'src', 'config.ts'), 'utf8');
  const read = new Set([...source.matchAll(/(?:text|integer)\(env, '([A-Z0-9_]+)'/g)].map((m) => m[1] as string));
  expect(read.size).toBeGreaterThan(15);
  expect([...read].filter((name) => !listed.has(name))).toEqual([]);
  // And names nothing the server does not read (UV_THREADPOOL_SIZE is read in compose.ts).
  expect([...listed.keys()].filter((name) => !read.has(name) && name !== 'UV_THREADPOOL_SIZE')).toEqual([]);
});

it('shows each default as the server has it', () => {
  expect(readConfig(Object.fromEntries(listed))).toEqual(readConfig({}));
});
