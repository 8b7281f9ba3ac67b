// The audit log of an application (docs/api.md, Audit log): a page newest first, and the export.
import { Readable } from 'node:stream';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditExport, auditPage, exportAuditHead } from '../../../application/console/audit-log.js';
import type { Deps } from '../../../application/deps.js';
import type { EventFilter } from '../../../application/ports/event-store.js';
import type { ErrorCode } from '../../../domain/errors.js';
import { Timestamp, closed } from '../schemas.js';
import { auditEntryJson } from '../views.js';
import { AppParams, instantOf, ownerOf } from './console-schemas.js';
import { answers } from '../answers.js';
import { AuditExport, AuditHead, AuditPage } from '../wire-schemas.js';

const APP: readonly ErrorCode[] = ['APPLICATION_NOT_FOUND'];

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9_.]+$' });
const filterFields = {
  action: Type.Optional(Name),
  actor_type: Type.Optional(Type.Enum(['owner', 'admin_key', 'end_user', 'system'])),
  target_type: Type.Optional(Name),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  since: Type.Optional(Timestamp),
  until: Type.Optional(Timestamp),
};
// Query strings arrive as strings (no coercion anywhere): numbers are checked by pattern, then parsed.
const PageQuery = Type.Object({ ...filterFields, cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })) }, closed);
const ExportQuery = Type.Object(filterFields, closed);

type FilterQuery = { action?: string; actor_type?: string; target_type?: string; target_id?: string; since?: string; until?: string };

const filterOf = (q: FilterQuery): EventFilter => ({
  ...(q.action === undefined ? {} : { action: q.action }),
  ...(q.actor_type === undefined ? {} : { actorType: q.actor_type }),
  ...(q.target_type === undefined ? {} : { targetType: q.target_type }),
  ...(q.target_id === undefined ? {} : { targetId: q.target_id }),
  ...(q.since === undefined ? {} : { since: instantOf('since', q.since) }),
  ...(q.until === undefined ? {} : { until: instantOf('until', q.until) }),
});

export const auditRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    '/applications/:app_id/audit',
    {
      schema: { params: AppParams, querystring: PageQuery, response: answers({ 200: AuditPage }) },
      config: { errors: APP },
    },
    async (request) => {
      const q = request.query;
      const page = await auditPage(deps, ownerOf(request), request.params.app_id, filterOf(q), {
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...(q.limit === undefined ? {} : { limit: Number.parseInt(q.limit, 10) }),
      });
      return { entries: page.entries.map(auditEntryJson), next_cursor: page.nextCursor, names: page.names };
    },
  );

  // Signed, for the owner to keep outside the database; NOT_FOUND while the chain is empty.
  app.get('/applications/:app_id/audit/head', { schema: { params: AppParams, response: answers({ 200: AuditHead }) }, config: { errors: [...APP, 'NOT_FOUND'] } }, async (request) =>
    exportAuditHead(deps, ownerOf(request), request.params.app_id),
  );

  // Streamed: the answer starts with the first batch, however long the log.
  app.get(
    '/applications/:app_id/audit.ndjson',
    {
      schema: { params: AppParams, querystring: ExportQuery, response: answers({ 200: AuditExport }) },
      config: { errors: APP },
    },
    async (request, reply) => {
      const entries = await auditExport(deps, ownerOf(request), request.params.app_id, filterOf(request.query));
      const lines = Readable.from(
        (async function* () {
          for await (const entry of entries) yield `${JSON.stringify(auditEntryJson(entry))}\n`;
        })(),
      );
      reply.type('application/x-ndjson');
      reply.header('content-disposition', `attachment; filename="audit-${request.params.app_id}.ndjson"`);
      return reply.send(lines);
    },
  );
};
