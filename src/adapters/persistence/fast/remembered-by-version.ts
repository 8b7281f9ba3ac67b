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

/** A row as its driver gives it: columns by name. */
type Row = Record<string, unknown>;

/** The reads behind one remembered read, and how its rows make an answer. */
export interface VersionedReads<Parts, Answer> {
  /** The wide read. */
  whole(values: Readonly<Record<string, string>>): Promise<readonly Row[]>;
  /** The same read with the versions only; null where rows carry none (nothing is then remembered). */
  versions: ((values: Readonly<Record<string, string>>) => Promise<readonly Row[]>) | null;
  /** The versions a row was read with, as one text. */
  versionsOf(row: Row): string;
  /** What is remembered of the wide read's rows (there is at least one): frozen, as every hit shares it. */
  partsOf(rows: readonly Row[]): Parts;
  answerOf(parts: Parts): Answer;
  /** The answer when no row is found. */
  none(): Answer;
}

/** A read by `key` (which stands for `values`) whose versions stand for the whole read while they
 * are the ones a remembered answer was read with; a changed version reads it whole again. */
export function readRememberedByVersion<Parts, Answer>({ whole, versions, versionsOf, partsOf, answerOf, none }: VersionedReads<Parts, Answer>) {
  const memory = versions === null ? null : rememberedByVersion<Parts>();
  const readWhole = (values: Readonly<Record<string, string>>, key: string): Promise<Answer> =>
    whole(values).then((rows) => {
      const [row] = rows;
      if (row === undefined) return none();
      const parts = partsOf(rows);
      memory?.set(key, versionsOf(row), parts);
      return answerOf(parts);
    });
  return (values: Readonly<Record<string, string>>, key: string): Promise<Answer> => {
    // Nothing remembered: the whole read at once, rather than its versions first.
    if (versions === null || memory === null || !memory.has(key)) return readWhole(values, key);
    return versions(values).then(([row]) => {
      if (row === undefined) return none();
      const read = memory.get(key, versionsOf(row));
      return read === undefined ? readWhole(values, key) : answerOf(read);
    });
  };
}
