// The version Gatehouse reports (`--version` of the server and of the CLI): package.json's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { folderAbove } from './adapters/find-above.js';

export function gatehouseVersion(): string {
  const pkg = JSON.parse(readFileSync(join(folderAbove(import.meta.url, 'package.json'), 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
