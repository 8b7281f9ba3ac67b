// Counters changed by compare-and-set (docs/choices.md, "Throttle counters"; docs/architecture.md, "Persistence notes").
import { and, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, Dialect } from '../dialect.js';

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

/** A decision: either an answer that writes nothing, or rows to write and the answer once they are. */
type Decision<T> = { answer: T; writes: CounterWrite[] };

/** Runs again this often at most while other writers keep changing the rows (only a fault runs out). */
const MAX_ROUNDS = 1_000;

/** After a loss, a short wait, growing and jittered, so writers of one row do not collide again together. */
const backoff = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** round, 32)));

function column(table: PgTable, name: string): PgColumn {
  const found = (getTableColumns(table) as Record<string, PgColumn>)[name];
  if (found === undefined) throw new Error(`no column ${name}`);
  return found;
}

/** The row of `table` whose columns (by key) hold `key`'s values, as CounterWrite.key names a row. */
export const keyed = (table: PgTable, key: Record<string, string>) => and(...Object.entries(key).map(([name, value]) => eq(column(table, name), value)));

/** Inserts the row, or updates it if it still holds `before`; whether it was written. */
async function swap(tx: Db, w: CounterWrite): Promise<boolean> {
  const col = (name: string) => column(w.table, name);
  // Inserted unless it appeared meanwhile; updated only while it still holds what was read.
  const written = { written: sql<number>`1` };
  if (w.before === null) {
    const row = { ...w.key, ...w.after };
    return (await tx.insert(w.table).values(row).onConflictDoNothing().returning(written)).length > 0;
  }
  const held = Object.entries(w.before).map(([name, value]) => (value === null ? isNull(col(name)) : eq(col(name), value)));
  const stillHeld = and(keyed(w.table, w.key), ...held);
  return (await tx.update(w.table).set(w.after).where(stillHeld).returning(written)).length > 0;
}

/** Reads with `read`, decides with `decide` (which may throw to refuse, writing nothing) and writes
 * the decision's rows in one transaction if none changed since the read; otherwise starts over. */
export function swapCounters<R, T>(d: Pick<Dialect, 'transaction'>, read: () => Promise<R>, decide: (read: R) => Decision<T>): Promise<T> {
  return retryingWhileMoved(async () => {
    const { answer, writes } = decide(await read());
    if (writes.length > 0) await d.transaction((tx) => swapWithin(tx, writes));
    return answer;
  });
}

/** Thrown when a row no longer holds what was read: the transaction must roll back and run again. */
export class CountersMoved extends Error {
  constructor() {
    super('a counter changed since it was read');
  }
}

/** Throws CountersMoved, rolling back the caller's transaction, unless each of `writes` (each saying
 * whether it applied to a row) applied. Sent together: the connection runs them in order. */
export async function allApplied(writes: Array<Promise<boolean>>): Promise<void> {
  if ((await Promise.all(writes)).includes(false)) throw new CountersMoved();
}

/** Writes `writes` inside a transaction, all or none (allApplied): the transaction may do other work
 * too (a session opened with the turn that let it through). */
export const swapWithin = (tx: Db, writes: CounterWrite[]): Promise<void> => allApplied(writes.map((w) => swap(tx, w)));

/** Runs `transaction` (which swaps counters with swapWithin) again while its counters moved. */
export async function retryingWhileMoved<T>(transaction: () => Promise<T>): Promise<T> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    try {
      return await transaction();
    } catch (e) {
      if (!(e instanceof CountersMoved)) throw e;
    }
    await backoff(round);
  }
  throw new Error(`counters kept changing under ${MAX_ROUNDS} attempts in a row`);
}
