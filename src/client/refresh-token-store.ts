// Where the client keeps a remembered login's refresh token, and only that (docs/sdk.md, "Staying
// signed in"): the caller's store, or a file created with mode 0600 and replaced whole.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';

/** Keeps one refresh token across restarts. `load` answers null when none is kept. */
export interface RefreshTokenStore {
  load(): Promise<string | null>;
  save(token: string): Promise<void>;
  clear(): Promise<void>;
}

const notFound = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** A file readable by its owner only: written to a new file made with mode 0600 (never chmod-ed
 * after), then renamed over the old one, so a crash leaves the old token or the new one. */
export function refreshTokenFile(path: string): RefreshTokenStore {
  return {
    async load() {
      try {
        const text = (await readFile(path, 'utf8')).trim();
        return text === '' ? null : text;
      } catch (e) {
        if (notFound(e)) return null;
        throw e;
      }
    },
    async save(token) {
      const fresh = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(fresh, `${token}\n`, { mode: 0o600, flag: 'wx' });
      try {
        await rename(fresh, path);
      } catch (e) {
        await rm(fresh, { force: true });
        throw e;
      }
    },
    async clear() {
      await rm(path, { force: true });
    },
  };
}
