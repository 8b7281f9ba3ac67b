// `gatehouse audit verify --application ID`: recomputes the application's audit chain from the
// database itself (local access is the authority, as for the owner commands) and reports OK with
// the count, or the first entry changed or removed (exit 1). docs/events.md, Verifying.
import { parseArgs } from 'node:util';
import { verifyAuditChain } from '../application/events/verify-audit.js';
import type { ChainVerdict } from '../domain/audit-chain.js';
import { DomainError } from '../domain/errors.js';
import { CliError, EXIT, UsageError } from './cli-errors.js';
import { openLocalData } from './local-data.js';

/** The verdict as one line a person reads. */
export function describeVerdict(applicationId: string, v: ChainVerdict): string {
  if (v.ok) return `audit chain of ${applicationId}: OK, ${v.count} entr${v.count === 1 ? 'y' : 'ies'} verified`;
  const prefix = `audit chain of ${applicationId}: BROKEN after ${v.count} good entr${v.count === 1 ? 'y' : 'ies'}:`;
  if (v.problem === 'changed') return `${prefix} entry seq ${v.seq} (id ${v.id}) was changed`;
  if (v.problem === 'missing') return `${prefix} entry seq ${v.seq} is missing${v.after === null ? ' (the first)' : ` (after seq ${v.after.seq}, id ${v.after.id})`}`;
  return `${prefix} the chain's head says seq ${v.headSeq}, but the newest entry is seq ${v.seq} with another hash`;
}

async function verify(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { application: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
  const applicationId = values.application;
  if (!applicationId) throw new UsageError('audit verify needs --application ID');
  const data = await openLocalData({ init: false });
  try {
    const verdict = await verifyAuditChain(data.deps, applicationId).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'APPLICATION_NOT_FOUND') throw new CliError(EXIT.NOT_FOUND, `no application ${applicationId}`);
      throw error;
    });
    process.stdout.write(`${values.json ? JSON.stringify({ application_id: applicationId, ...verdict }) : describeVerdict(applicationId, verdict)}\n`);
    return verdict.ok ? EXIT.OK : EXIT.FAILURE;
  } finally {
    await data.close();
  }
}

export const auditCommands: Record<string, (args: string[]) => Promise<number>> = { verify };
