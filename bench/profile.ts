// How long and how big each scenario runs: the full benchmark, or --quick for a CI smoke run
// (the same steps, small and short, so that it finishes in well under two minutes).
import type { Db } from './backend.js';

export interface Profile {
  /** Alternating rounds of each measured side against its ceiling. */
  rounds: number;
  /** Seconds of load per side and round. */
  seconds: number;
  /** Seconds of unmeasured load on each side first (JIT, caches, connection pools). */
  warmupSeconds: number;
  /** Members whose sessions the app_context load rotates through. */
  contextMembers: number;
  /** Members the login load rotates through. */
  loginMembers: number;
  downloadBytes: number;
  downloadRounds: number;
  uploadBytes: number;
  /** Users and licenses in the large case of the scale scenario. */
  scaleRows: number;
  /** Ended sessions of one member in the large case of the session_history scenario. */
  sessionRows: number;
  /** Members with one live leased session each, all heartbeating, in the heartbeat scenario. */
  heartbeatSessions: number;
}

const MiB = 1024 * 1024;

export const FULL: Profile = {
  rounds: 3,
  seconds: 8,
  warmupSeconds: 3,
  contextMembers: 20,
  loginMembers: 32,
  downloadBytes: 256 * MiB,
  downloadRounds: 5,
  uploadBytes: 1024 * MiB,
  scaleRows: 100_000,
  sessionRows: 1_000_000,
  heartbeatSessions: 10_000,
};

export const QUICK: Profile = {
  rounds: 1,
  seconds: 1.5,
  warmupSeconds: 0.5,
  contextMembers: 2,
  loginMembers: 4,
  downloadBytes: 16 * MiB,
  downloadRounds: 1,
  uploadBytes: 32 * MiB,
  scaleRows: 2_000,
  sessionRows: 20_000,
  heartbeatSessions: 500,
};

export interface BenchContext {
  db: Db;
  /** As the result rows name it: the database and the blob store. */
  backendName: string;
  profile: Profile;
  /** libuv's thread pool size, the same for the server and every ceiling process. */
  threadPoolSize: number;
  log(line: string): void;
}
