// `npm install` on Node 20 prints no engine warnings (issue 39, item 8): every package the lock
// installs accepts the oldest Node that package.json's `engines` admits.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../support/server-process.js';

// semver comes with npm's own tree (a dependency of several packages); untyped here.
const semver = createRequire(import.meta.url)('semver') as { minVersion(range: string): { version: string } | null; satisfies(version: string, range: string): boolean };

it('every locked package accepts the oldest Node that engines admits, a Node 20', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
  const oldest = semver.minVersion(pkg.engines.node)!.version;
  expect(oldest).toMatch(/^20\./);
  const refusing = Object.entries(lock.packages)
    .map(([path, p]) => ({ path, version: p.version, node: Array.isArray(p.engines) ? undefined : p.engines?.node }))
    .filter((p) => p.node !== undefined && !semver.satisfies(oldest, p.node));
  expect(refusing).toEqual([]);
});
