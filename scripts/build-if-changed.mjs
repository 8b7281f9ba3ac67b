#!/usr/bin/env node
// `npm start` runs this first, and `npm install` (prepare), also when a client project installs the
// checkout: it builds (npm run build) only when the sources differ from those of the last build, so
// a second start takes a second, and an install leaves a running server's dist/ alone (README). `--stamp` (the end of npm run build) records the sources just built.
// The record is a hash of the contents of src/ and the build's configuration, in dist/.build-stamp.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = join(root, 'dist', '.build-stamp');
const inputs = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const outputs = [join('dist', 'src', 'main.js'), join('dist', 'src', 'cli.js'), join('dist', 'dashboard', 'index.html')];

/** The files at `path` (a file, or a folder's files at any depth), relative to the root. */
function files(path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

function sourcesHash() {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(files).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

if (process.argv.includes('--stamp')) {
  writeFileSync(stampFile, `${sourcesHash()}\n`);
} else {
  const built = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : null;
  const complete = outputs.every((file) => existsSync(join(root, file)));
  if (!complete || built !== sourcesHash()) {
    process.stderr.write(complete ? 'Sources changed since the last build: building...\n' : 'Building (no build yet)...\n');
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  }
}
