// `gatehouse audit verify|head --application ID`: recomputes the application's keyed audit chain
// from the database itself (local access is the authority, as for the owner commands), checks it
// against a head exported earlier, and exports a signed head. docs/events.md, Verifying.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { signAuditHead } from '../application/events/audit-head.js';
import { type AuditReport, verifyAuditChain } from '../application/events/verify-audit.js';
import type { ChainVerdict } from '../domain/audit-chain.js';
import { DomainError } from '../domain/errors.js';
import { parseSignedAuditHead, type SignedAuditHead } from '../signing/audit-head.js';
import { CliError, EXIT, UsageError } from './cli-errors.js';
import { openLocalData } from './local-data.js';

const entries = (n: number) => `${n} entr${n === 1 ? 'y' : 'ies'}`;

/** The chain's verdict as the line a person reads. */
export function describeVerdict(applicationId: string, v: ChainVerdict): string {
  if (v.ok) return `audit chain of ${applicationId}: OK, ${entries(v.count)} verified${v.legacy > 0 ? ` (the first ${v.legacy} chained before keying)` : ''}`;
  const prefix = `audit chain of ${applicationId}: BROKEN after ${v.count} good ${v.count === 1 ? 'entry' : 'entries'}:`;
  switch (v.problem) {
    case 'changed':
      return `${prefix} entry seq ${v.seq} (id ${v.id}) was changed`;
    case 'missing':
      return `${prefix} entry seq ${v.seq} is missing${v.after === null ? ' (the first)' : ` (after seq ${v.after.seq}, id ${v.after.id})`}`;
    case 'head':
      return `${prefix} the chain's head says seq ${v.headSeq}, but the newest entry is seq ${v.seq} with another hash`;
    case 'unkeyed':
      return `${prefix} entries from seq ${v.seq} on are not linked with the key (re-linked by hand, or chained before keying and not yet re-anchored by a server)`;
    case 'anchor':
      return `${prefix} the exported head names seq ${v.seq}, which the chain ${v.lastSeq === null || v.lastSeq < v.seq ? `no longer holds (it ends at seq ${v.lastSeq ?? 0})` : 'holds with another hash'}`;
    case 'pruned':
      return `${prefix} the audit.pruned entry seq ${v.seq} that says where the chain starts is not part of it`;
  }
}

/** The report as lines: the chain's verdict, then what else was found. */
export function describeReport(applicationId: string, r: AuditReport): string {
  const lines = [describeVerdict(applicationId, r.chain)];
  if (r.anchorRefused) lines.push(`the exported head is not signed by the application's key: not checked against it, and not trusted`);
  if (r.unlinked.count > 0) lines.push(`${entries(r.unlinked.count)} outside the chain, not sealed by Gatehouse (written into the database by other means): ${r.unlinked.ids.join(', ')}`);
  if (r.pending > 0) lines.push(`${entries(r.pending)} waiting for the server's chainer (not verified yet)`);
  return lines.join('\n');
}

function readAnchor(path: string): SignedAuditHead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--anchor ${path}: ${(error as Error).message}`);
  }
  const head = parseSignedAuditHead(text);
  if (head === null) throw new UsageError(`--anchor ${path}: not an exported audit head (gatehouse audit head)`);
  return head;
}

const notFound = (applicationId: string) => (error: unknown) => {
  if (error instanceof DomainError && error.code === 'APPLICATION_NOT_FOUND') throw new CliError(EXIT.NOT_FOUND, `no application ${applicationId}`);
  throw error;
};

async function verify(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { application: { type: 'string' }, anchor: { type: 'string' }, 'export-head': { type: 'string' }, json: { type: 'boolean' } }, strict: true });
  const applicationId = values.application;
  if (!applicationId) throw new UsageError('audit verify needs --application ID');
  const anchor = values.anchor === undefined ? null : readAnchor(values.anchor);
  const data = await openLocalData({ init: false });
  try {
    const report = await verifyAuditChain(data.deps, applicationId, anchor).catch(notFound(applicationId));
    process.stdout.write(`${values.json ? JSON.stringify({ application_id: applicationId, ...report }) : describeReport(applicationId, report)}\n`);
    if (report.ok && values['export-head'] !== undefined) {
      const head = await signAuditHead(data.deps, applicationId);
      if (head !== null) writeFileSync(values['export-head'], `${JSON.stringify(head)}\n`);
    }
    return report.ok ? EXIT.OK : EXIT.FAILURE;
  } finally {
    await data.close();
  }
}

async function head(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { application: { type: 'string' } }, strict: true });
  const applicationId = values.application;
  if (!applicationId) throw new UsageError('audit head needs --application ID');
  const data = await openLocalData({ init: false });
  try {
    const signed = await signAuditHead(data.deps, applicationId).catch(notFound(applicationId));
    if (signed === null) throw new CliError(EXIT.FAILURE, `the audit chain of ${applicationId} is empty: nothing to export yet`);
    process.stdout.write(`${JSON.stringify(signed)}\n`);
    return EXIT.OK;
  } finally {
    await data.close();
  }
}

export const auditCommands: Record<string, (args: string[]) => Promise<number>> = { verify, head };
