// The in-process signal that a file job was queued: the use cases that queue one ring it, and a
// file processor of the same process listens, so it starts at once instead of at its next poll.
// Made before both, at composition, so nothing is patched in afterwards.

export interface JobBell {
  ring(): void;
  /** Calls `listener` at every ring until the returned function is called. */
  listen(listener: () => void): () => void;
}

export function createJobBell(): JobBell {
  const listeners = new Set<() => void>();
  return {
    ring() {
      for (const listener of listeners) listener();
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
