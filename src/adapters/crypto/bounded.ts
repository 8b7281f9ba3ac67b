/**
 * Runs at most `limit` tasks at once; the rest wait in order. Bounds memory-hard work (argon2
 * takes ~19 MiB a hash) so a flood of logins queues instead of exhausting memory.
 */
export function createBoundedRunner(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    running -= 1;
    const next = waiting.shift();
    if (next) next();
  };

  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
}
