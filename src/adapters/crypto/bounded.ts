/** Runs memory-hard work (argon2) at most `concurrency` tasks at once, in lanes (one per application,
 * one for the console): each bounded, so a flood is refused rather than queued without end, and taking
 * turns, so one lane's queue delays no other by its length (docs/security.md, "Password work queue"). */
export interface LaneAdmission {
  /** Runs `task` when its turn comes. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Gives the place back; a second call does nothing. */
  done(): void;
}

/** What the runner holds now (the metrics read it, docs/configuration.md Metrics). */
export interface RunnerLoad {
  /** Tasks running. */
  running: number;
  /** Tasks waiting for their turn, over all lanes. */
  waiting: number;
}

export interface FairRunner {
  /** A place in `lane`'s queue, or null when the lane already holds `maxPerLane` places. */
  admit(lane: string): LaneAdmission | null;
  load(): RunnerLoad;
}

interface Lane {
  places: number;
  waiting: Array<() => void>;
}

export function createFairRunner(options: { concurrency: number; maxPerLane: number }): FairRunner {
  const lanes = new Map<string, Lane>();
  /** Lanes with waiting tasks, in the order they get their next turn. */
  const turns: Lane[] = [];
  let running = 0;

  const forget = (name: string, lane: Lane) => {
    if (lane.places === 0 && lane.waiting.length === 0) lanes.delete(name);
  };

  const startNext = () => {
    const lane = turns.shift();
    const next = lane?.waiting.shift();
    if (lane === undefined || next === undefined) return;
    if (lane.waiting.length > 0) turns.push(lane);
    running += 1;
    next();
  };

  const turn = (lane: Lane): Promise<void> => {
    if (running < options.concurrency && turns.length === 0) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      if (lane.waiting.length === 0) turns.push(lane);
      lane.waiting.push(resolve);
    });
  };

  return {
    load() {
      let waiting = 0;
      for (const lane of turns) waiting += lane.waiting.length;
      return { running, waiting };
    },
    admit(name) {
      const lane = lanes.get(name) ?? { places: 0, waiting: [] };
      if (lane.places >= options.maxPerLane) return null;
      lane.places += 1;
      lanes.set(name, lane);
      let held = true;
      return {
        async run(task) {
          await turn(lane);
          try {
            return await task();
          } finally {
            running -= 1;
            startNext();
          }
        },
        done() {
          if (!held) return;
          held = false;
          lane.places -= 1;
          forget(name, lane);
        },
      };
    },
  };
}
