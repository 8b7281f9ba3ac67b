import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export const MASTER_KEY_FILE = 'master.key';

export function decodeMasterKey(base64: string): Buffer | null {
  const key = Buffer.from(base64.trim(), 'base64');
  return key.length === 32 ? key : null;
}

/** The configured master key, or the one kept in the data folder, generated there (mode 0600) on first
 * start. Losing it makes every sealed secret (files keys, license codes) unreadable. */
export function loadOrCreateMasterKey(dataDir: string): Buffer {
  const path = join(dataDir, MASTER_KEY_FILE);
  if (existsSync(path)) {
    const key = decodeMasterKey(readFileSync(path, 'utf8'));
    if (!key) throw new Error(`${path} does not hold base64 of 32 bytes`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // 'wx' refuses to overwrite a key another process wrote in the meantime.
  try {
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateMasterKey(dataDir);
    throw e;
  }
}
