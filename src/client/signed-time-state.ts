// The newest signed server time the client has seen, from verified answers and license files: a
// license file is refused on a clock behind it, so setting the clock back does not revive an expired
// one. Kept in memory and, when the caller names one, in a state file (docs/sdk.md, "The clock").
import { readFile, rename, writeFile } from 'node:fs/promises';

/** The state file is rewritten once the newest time has moved on by this much, not on every answer;
 * the clock check tolerates more than this (CLOCK_TOLERANCE_SECONDS). */
const WRITE_STEP_SECONDS = 60;

export interface SignedTimeState {
  /** The newest signed time seen (Unix seconds), 0 when none: what the state file held, or later. */
  newest(): Promise<number>;
  /** A signed time seen now; kept when newer. */
  observe(seconds: number): Promise<void>;
}

/** What a state file holds, or 0 when it is absent or not one (it is then written afresh). */
function parseState(text: string): number {
  try {
    const state: unknown = JSON.parse(text);
    if (typeof state !== 'object' || state === null) return 0;
    const seconds = (state as Record<string, unknown>)['newest_signed_time'];
    return typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds > 0 ? seconds : 0;
  } catch {
    return 0;
  }
}

async function readState(path: string): Promise<number> {
  try {
    return parseState(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** Writes beside the file, then renames over it: a crash leaves the old state or the new, never half of one. */
async function writeState(path: string, seconds: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ v: 1, newest_signed_time: seconds })}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** The state, kept in `path` when given (read at first use), in memory only otherwise. */
export function signedTimeState(path: string | undefined): SignedTimeState {
  let newest = 0;
  let written = 0;
  let loaded: Promise<void> | null = null;
  // Writes one after another, so an older time never lands after a newer one.
  let writes: Promise<void> = Promise.resolve();
  const load = () =>
    (loaded ??= (path === undefined ? Promise.resolve(0) : readState(path)).then((stored) => {
      newest = Math.max(newest, stored);
      written = stored;
    }));
  return {
    async newest() {
      await load();
      return newest;
    },
    async observe(seconds) {
      await load();
      if (seconds <= newest) return;
      newest = seconds;
      if (path === undefined || newest - written < WRITE_STEP_SECONDS) return;
      written = newest;
      const write = writes.then(() => writeState(path, seconds));
      writes = write.catch(() => {});
      await write;
    },
  };
}
