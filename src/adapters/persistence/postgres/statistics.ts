// The planner's statistics, kept fresh by the server itself (docs/choices.md, "Planner statistics").
import { sql } from 'drizzle-orm';
import { driverError, type Db } from '../dialect.js';

/** Key of the transaction advisory lock one instance analyzes under ("gatehouse-analyze"). */
const ANALYZE_LOCK = 7_165_063_318_245_923_174n;

/** How long ANALYZE waits for its table lock. A migration's lock request queues every later query
 * of the table behind it, so ANALYZE must never hold one table long, nor wait behind one. */
const ANALYZE_LOCK_TIMEOUT_MS = 1_000;

/** Tables changed by more than autovacuum's own default threshold (50 rows plus a tenth of the table). */
const STALE = sql`n_mod_since_analyze > 50 + 0.1 * greatest(n_live_tup, 0)`;

const lockNotAvailable = (e: unknown) => driverError(e, (cur) => ((cur as { code?: unknown }).code === '55P03' ? true : null)) === true;

/** Analyzes the stale tables, one per transaction under a `lock_timeout` (a table whose lock is not
 * had in time is left for the next round), and returns the names of those analyzed. One instance
 * at a time: the others find the lock taken and leave the work to it. */
export async function refreshStatistics(db: Db): Promise<string[]> {
  const candidates = [...(await db.execute(sql`select relname from pg_stat_user_tables where schemaname = current_schema() and ${STALE} order by relname`))] as Array<{ relname: string }>;
  const analyzed: string[] = [];
  for (const { relname } of candidates) {
    const outcome = await analyzeOne(db, relname);
    if (outcome === 'busy') break;
    if (outcome === 'analyzed') analyzed.push(relname);
  }
  return analyzed;
}

async function analyzeOne(db: Db, relname: string): Promise<'analyzed' | 'skipped' | 'busy'> {
  try {
    return await db.transaction(async (tx) => {
      const [lock] = [...(await tx.execute(sql`select pg_try_advisory_xact_lock(${ANALYZE_LOCK}) as taken`))] as Array<{ taken: boolean }>;
      if (lock?.taken !== true) return 'busy';
      // Another instance may have analyzed it since the list was read.
      const [still] = [...(await tx.execute(sql`select 1 as stale from pg_stat_user_tables where schemaname = current_schema() and relname = ${relname} and ${STALE}`))];
      if (still === undefined) return 'skipped';
      await tx.execute(sql.raw(`set local lock_timeout = ${ANALYZE_LOCK_TIMEOUT_MS}`));
      await tx.execute(sql`analyze ${sql.identifier(relname)}`);
      return 'analyzed';
    });
  } catch (error) {
    if (lockNotAvailable(error)) return 'skipped';
    throw error;
  }
}
