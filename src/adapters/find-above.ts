// Files that ship beside the code (migrations, the dashboard build) are found from the module's
// own location: it sits at a different depth under src (vitest) and dist/src (compiled).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above the module at `moduleUrl` that holds `relativePath`; throws, naming
 * what was looked for, when none does. */
export function folderAbove(moduleUrl: string, relativePath: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, relativePath))) return dir;
    if (dirname(dir) === dir) throw new Error(`${relativePath} not found above ${start}`);
  }
}
