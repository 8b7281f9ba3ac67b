// License files in the SDK (docs/sdk.md, Client SDK, Offline license files; docs/signing.md): verified
// against the pinned keys, the application, this machine and the newest signed time seen, and
// kept in a file the caller names for appContext()'s offline fallback.
import type { KeyObject } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { type LicenseFileClaims, verifyLicenseFile } from '../signing/license-file.js';
import type { SignedTimeState } from './signed-time-state.js';
import type { OfflineAppContext } from './types.js';

export interface LicenseFileVerifyOptions {
  /** The machine's hardware id; default: the client's. */
  hardwareId?: string;
  /** The time to check against (a Date or epoch ms); default: this clock. */
  now?: Date | number;
}

export interface OfflineLicense {
  verify(text: string, options?: LicenseFileVerifyOptions): Promise<LicenseFileClaims>;
  /** Keeps a file that verified where the caller asked (no-op without a path). */
  store(text: string): Promise<void>;
  /** The stored file, verified now, as an application context that says it is offline; null when none is stored. */
  fallback(cause: unknown): Promise<OfflineAppContext | null>;
}

const ms = (now: Date | number | undefined) => (now === undefined ? Date.now() : typeof now === 'number' ? now : now.getTime());
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

export function createOfflineLicense(keys: ReadonlyMap<string, KeyObject>, applicationId: string, hardwareId: string | undefined, clock: SignedTimeState, path: string | undefined): OfflineLicense {
  async function verify(text: string, options: LicenseFileVerifyOptions = {}): Promise<LicenseFileClaims> {
    const claims = verifyLicenseFile(text, {
      keys,
      applicationId,
      hardwareId: options.hardwareId ?? hardwareId ?? null,
      now: Math.floor(ms(options.now) / 1000),
      newestSignedTime: await clock.newest(),
    });
    // A file that verified carries a signed time: the clock may not go back behind it either.
    await clock.observe(claims.iat);
    return claims;
  }

  return {
    verify,
    async store(text) {
      if (path === undefined) return;
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, path);
    },
    async fallback(cause) {
      if (path === undefined) return null;
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      const claims = await verify(text);
      return {
        offline: true,
        cause,
        license: claims,
        expires_at: iso(claims.exp),
        user: {
          id: claims.sub,
          username: claims.username,
          membership: {
            is_active: true,
            is_lifetime: claims.membership.is_lifetime,
            active_until: claims.membership.active_until === null ? null : iso(claims.membership.active_until),
            plan: claims.plan,
            entitlements: claims.entitlements,
            // A file is issued for access that lasts until it expires: grace is the server's to tell.
            in_grace: false,
            grace_ends_at: null,
          },
        },
      };
    },
  };
}
