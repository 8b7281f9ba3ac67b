// Counters changed optimistically: read without locks, decide with the domain, then write each
// row only if it still holds what was read (compare-and-set), all rows or none (Dialect.allOrNone); when
// any row changed meanwhile, nothing is written and the whole step runs again on fresh values.
//
// Why not lock the rows (SELECT ... FOR UPDATE): every login from one address counts on that
// address's row, and a lock held across the transaction's round trips made those logins queue
// behind each other on PostgreSQL (docs/choices.md, "Throttle counters"). Here a row is locked
// only while the one statement that writes it runs.
//
// The decision is a pure function of the values compared, so a row that changed and changed back
// (A, B, A) is decided exactly as it would be after those changes: nothing is lost.
//
// Within one process, steps on the same rows take turns (serialLanes): all logins from one
// address count on that address's row, and run together they would read the same values and all
// but one lose, fail a statement and run again, round after round (docs/performance-log.md,
// "figures from comments"). Across processes compare-and-set still decides.
import { and, getTableColumns, getTableName, type Placeholder, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { AppliedWrite, Db, Dialect } from '../dialect.js';

type Values = Record<string, number | null>;

/** One counter row to write: where it is, what the decision was made from, and what it becomes. */
export interface CounterWrite {
  table: PgTable;
  /** Its primary key's values, by column key. */
  key: Record<string, string>;
  /** The counted values as read (the row's column keys), or null: the row did not exist. */
  before: Values | null;
  /** What to write (a superset of `before`'s keys, e.g. also a touched-at). */
  after: Values;
}

/**
 * A decision: either an answer that writes nothing, or rows to write and the answer once they are;
 * `after`, the counters as they stand once the writes applied, for a step that remembers them.
 */
export type Decision<T, R = unknown> = { answer: T; writes: CounterWrite[]; after?: R };

/**
 * Counters a step remembers from the last step on the same rows in this process, to decide on
 * without reading them. What it remembers is only ever a guess: a decision made on it stands only
 * when its compare-and-set writes apply, which proves every row written still held the
 * remembered values; a decision that writes nothing (a refusal, 'busy') is made again on a fresh
 * read, so stale counters can never refuse anybody. So a decision that writes must write (compare
 * and set) every row its answer depends on.
 */
export interface CounterMemory<R> {
  recall(): R | undefined;
  /** What the rows hold now, or undefined: nothing is known any more. */
  keep(counters: R | undefined): void;
}

/**
 * Runs again this often at most while other writers keep changing the rows. Each loss is another
 * writer's win, so the rounds only run out on a fault (a value that never compares equal).
 */
const MAX_ROUNDS = 1_000;

/**
 * After a loss, a short wait, growing and jittered: many writers of one row (fifty parallel
 * logins of one account) would otherwise read and collide again together, round after round.
 */
const backoff = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** round, 32)));

function column(table: PgTable, name: string): PgColumn {
  const found = (getTableColumns(table) as Record<string, PgColumn>)[name];
  if (found === undefined) throw new Error(`no column ${name}`);
  return found;
}

// Each write of a step is built once per shape (which table, which columns, whether the row was
// there) with placeholders, `w<i><part>_<column>`, and the step binds the values (Dialect.allOrNone).
const placeholderName = (i: number, part: 'k' | 'a' | 'b', name: string) => `w${i}${part}_${name}`;

/** The placeholders of `values`' columns, for write `i`'s `part`. */
function placeholders(i: number, part: 'k' | 'a' | 'b', values: Record<string, unknown>) {
  const out: Record<string, Placeholder> = {};
  for (const name of Object.keys(values)) out[name] = sql.placeholder(placeholderName(i, part, name));
  return out;
}

function stillHolds(table: PgTable, i: number, before: Values | null): SQL {
  if (before === null) return sql`false`;
  return and(...Object.keys(before).map((name) => sql`${column(table, name)} is not distinct from ${sql.placeholder(placeholderName(i, 'b', name))}`)) ?? sql`true`;
}

/** Inserts the row, or updates it if it still holds `before`; a row returned when it was written. */
function swap(db: Db, w: CounterWrite, i: number): AppliedWrite {
  const after = placeholders(i, 'a', w.after);
  const key = placeholders(i, 'k', w.key);
  // A row read as missing is inserted, unless it appeared meanwhile; a row read (or remembered)
  // with values is updated only while it still holds them: if it was deleted meanwhile (purged,
  // unlocked) the step fails and decides again on what is there now.
  if (w.before === null)
    return db
      .insert(w.table)
      .values({ ...key, ...after })
      .onConflictDoNothing()
      .returning({ written: sql<number>`1` });
  const where = and(...Object.entries(key).map(([name, value]) => sql`${column(w.table, name)} = ${value}`), stillHolds(w.table, i, w.before));
  return db
    .update(w.table)
    .set(after)
    .where(where)
    .returning({ written: sql<number>`1` });
}

/** What the writes' statements depend on: their tables, their columns, and which rows were there. */
const shapeOf = (writes: CounterWrite[]) =>
  'counters:' + writes.map((w) => `${getTableName(w.table)}(${Object.keys(w.key).join()}|${Object.keys(w.after).join()}|${w.before === null ? '-' : Object.keys(w.before).join()})`).join(';');

/** The values of the writes' placeholders. */
function valuesOf(writes: CounterWrite[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  writes.forEach((w, i) => {
    for (const [name, value] of Object.entries(w.key)) values[placeholderName(i, 'k', name)] = value;
    for (const [name, value] of Object.entries(w.after)) values[placeholderName(i, 'a', name)] = value;
    for (const [name, value] of Object.entries(w.before ?? {})) values[placeholderName(i, 'b', name)] = value;
  });
  return values;
}

/**
 * Runs work keyed alike one piece at a time, in call order; different keys run side by side. A
 * piece that fails does not hold up the next. Keys are dropped once their last piece is done.
 */
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

/**
 * Reads with `read`, decides with `decide` (which may throw to refuse, writing nothing) and writes
 * the decision's rows if none changed since the read; otherwise starts over. With `memory`, the
 * first round decides on the counters remembered, if any, instead of reading (CounterMemory).
 */
export async function swapCounters<R, T>(d: Pick<Dialect, 'allOrNone'>, read: () => Promise<R>, decide: (read: R) => Decision<T, R>, memory?: CounterMemory<R>): Promise<T> {
  const guess = memory?.recall();
  if (guess !== undefined) {
    // Only a decision whose writes apply is taken from a guess; a refusal, 'busy' or a lost
    // compare-and-set is decided again below, on what is stored.
    let decision: Decision<T, R> | null = null;
    try {
      decision = decide(guess);
    } catch {
      // Refused on the guess: decided again below.
    }
    if (decision !== null && decision.writes.length > 0 && (await apply(d, decision.writes))) {
      memory?.keep(decision.after);
      return decision.answer;
    }
    memory?.keep(undefined);
  }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const decision = decide(await read());
    if (decision.writes.length === 0) return decision.answer;
    if (await apply(d, decision.writes)) {
      memory?.keep(decision.after);
      return decision.answer;
    }
    memory?.keep(undefined);
    await backoff(round);
  }
  throw new Error(`counters kept changing under ${MAX_ROUNDS} attempts in a row`);
}

/** Writes all of `writes` or none; whether they applied. */
const apply = (d: Pick<Dialect, 'allOrNone'>, writes: CounterWrite[]) => d.allOrNone(shapeOf(writes), (db) => writes.map((w, i) => swap(db, w, i)), valuesOf(writes));
