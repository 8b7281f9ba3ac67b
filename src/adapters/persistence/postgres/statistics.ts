// The planner's statistics, kept fresh by the server itself (docs/choices.md, "Planner
// statistics"). A PostgreSQL without autovacuum never analyzes Gatehouse's tables, so every plan
// is made from their first, empty-table estimates, and a prepared statement keeps the plan it was
// given: with 100,000 users a login's `users` lookups walked a whole (application_id, created_at)
// index instead of probing the unique key, and logins took seven times as long. ANALYZE both
// updates the estimates and invalidates every connection's cached plans, so the next execution of
// each statement is planned again on the new figures.
import { sql } from 'drizzle-orm';
import type { Db } from '../dialect.js';

/** Key of the transaction advisory lock one instance analyzes under ("gatehouse-analyze"). */
const ANALYZE_LOCK = 7_165_063_318_245_923_174n;

/**
 * Analyzes the tables changed by more than autovacuum's own default threshold since their last
 * analysis (50 rows plus a tenth of the table), and returns their names. One instance at a time:
 * the others find the lock taken and leave the work to it.
 */
export async function refreshStatistics(db: Db): Promise<string[]> {
  return db.transaction(async (tx) => {
    const [lock] = [...(await tx.execute(sql`select pg_try_advisory_xact_lock(${ANALYZE_LOCK}) as taken`))] as Array<{ taken: boolean }>;
    if (lock?.taken !== true) return [];
    const stale = [
      ...(await tx.execute(sql`
        select relname from pg_stat_user_tables
        where schemaname = current_schema() and n_mod_since_analyze > 50 + 0.1 * greatest(n_live_tup, 0)
        order by relname`)),
    ] as Array<{ relname: string }>;
    for (const { relname } of stale) await tx.execute(sql`analyze ${sql.identifier(relname)}`);
    return stale.map((r) => r.relname);
  });
}
