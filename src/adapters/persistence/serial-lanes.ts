// Work that must take turns within this process: SQLite's writer per database file, and the
// steps on one throttle counter row (docs/architecture.md, "Persistence notes").

/** Runs work keyed alike one piece at a time, in call order; different keys run side by side. A
 * piece that fails does not hold up the next. Keys are dropped once their last piece is done. */
export function serialLanes(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<void>>();
  return (key, work) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work);
    // Settles once `run` has, whatever its outcome; the key goes unless a later piece queued behind it.
    const ended = () => {
      if (tails.get(key) === tail) tails.delete(key);
    };
    const tail = run.then(ended, ended);
    tails.set(key, tail);
    return run;
  };
}
