// Answers remembered with the versions of the rows they were read from (FastReads.rowVersions), so a
// narrow read of those versions can stand for the wide read that made the answer: while every
// version is the same, so is every row (docs/choices.md, "Remembered access").

/** Keys one memory keeps; the least recently used goes first. */
export const REMEMBERED_ANSWERS = 4_096;

// How long an answer is trusted at most, however its versions compare: an xmin is a 32-bit
// transaction id that comes round again (docs/choices.md, "Remembered access").
export const REMEMBERED_MAX_AGE_MS = 10 * 60_000;

export interface RememberedByVersion<T> {
  /** Whether anything is remembered for `key` (its versions are then worth reading). */
  has(key: string): boolean;
  /** The answer remembered for `key`, if it was read with exactly `versions` and is young enough. */
  get(key: string, versions: string): T | undefined;
  set(key: string, versions: string, value: T): void;
}

export function rememberedByVersion<T>(capacity = REMEMBERED_ANSWERS, maxAgeMs = REMEMBERED_MAX_AGE_MS, now: () => number = () => performance.now()): RememberedByVersion<T> {
  // Insertion order is recency: a hit moves its entry to the end.
  const entries = new Map<string, { versions: string; value: T; at: number }>();
  return {
    has: (key) => entries.has(key),
    get(key, versions) {
      const entry = entries.get(key);
      if (entry === undefined || entry.versions !== versions || now() - entry.at > maxAgeMs) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, versions, value) {
      entries.delete(key);
      entries.set(key, { versions, value, at: now() });
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
    },
  };
}
