import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type AnnouncementInput, createAnnouncement, deleteAnnouncement, listAnnouncements, updateAnnouncement } from '../../../application/console/announcements.js';
import { deleteVariable, listVariables, putVariable } from '../../../application/console/variables.js';
import type { Deps } from '../../../application/deps.js';
import { Timestamp, Uuid, closed } from '../schemas.js';
import { announcementJson, variableJson } from '../views.js';
import { AppParams, instantOf, ownerOf } from './console-schemas.js';
import { answers } from '../answers.js';
import { Announcement, NoBody, Variable } from '../wire-schemas.js';
import type { ErrorCode } from '../../../domain/errors.js';

const APP: readonly ErrorCode[] = ['APPLICATION_NOT_FOUND'];

const VariableParams = Type.Object({ app_id: Uuid, name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]{1,128}$' }) }, closed);
const VariableBody = Type.Object({ value: Type.String({ maxLength: 65_536 }), is_public: Type.Boolean() }, closed);

const Title = Type.String({ minLength: 1, maxLength: 200 });
const ContentHtml = Type.String({ maxLength: 100_000 });
const Status = Type.Enum(['DRAFT', 'PUBLISHED', 'ARCHIVED']);
const PublishUntil = Type.Union([Timestamp, Type.Null()]);

const CreateAnnouncement = Type.Object({ title: Title, content_html: ContentHtml, status: Status, publish_from: Timestamp, publish_until: Type.Optional(PublishUntil) }, closed);
const PatchAnnouncement = Type.Object(
  {
    title: Type.Optional(Title),
    content_html: Type.Optional(ContentHtml),
    status: Type.Optional(Status),
    publish_from: Type.Optional(Timestamp),
    publish_until: Type.Optional(PublishUntil),
  },
  closed,
);
const AnnouncementParams = Type.Object({ app_id: Uuid, announcement_id: Uuid }, closed);

const untilOf = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : instantOf('publish_until', v));

export const contentRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // ---- Variables ----
  app.put('/applications/:app_id/variables/:name', { schema: { params: VariableParams, body: VariableBody, response: answers({ 200: Variable }) }, config: { errors: APP } }, async (request) => {
    const variable = await putVariable(
      deps,
      ownerOf(request),
      request.params.app_id,
      request.params.name,
      {
        value: request.body.value,
        isPublic: request.body.is_public,
      },
      request.actor,
    );
    return variableJson(variable);
  });

  app.get('/applications/:app_id/variables', { schema: { params: AppParams, response: answers({ 200: Type.Array(Variable) }) }, config: { errors: APP } }, async (request) =>
    (await listVariables(deps, ownerOf(request), request.params.app_id)).map(variableJson),
  );

  app.delete(
    '/applications/:app_id/variables/:name',
    { schema: { params: VariableParams, response: answers({ 204: NoBody }) }, config: { errors: [...APP, 'VARIABLE_NOT_FOUND'] } },
    async (request, reply) => {
      await deleteVariable(deps, ownerOf(request), request.params.app_id, request.params.name, request.actor);
      return reply.code(204).send();
    },
  );

  // ---- Announcements ----
  app.post(
    '/applications/:app_id/announcements',
    { schema: { params: AppParams, body: CreateAnnouncement, response: answers({ 201: Announcement }) }, config: { errors: APP } },
    async (request, reply) => {
      const b = request.body;
      const created = await createAnnouncement(
        deps,
        ownerOf(request),
        request.params.app_id,
        {
          title: b.title,
          contentHtml: b.content_html,
          status: b.status,
          publishFrom: instantOf('publish_from', b.publish_from),
          publishUntil: untilOf(b.publish_until) ?? null,
        },
        request.actor,
      );
      return reply.code(201).send(announcementJson(created));
    },
  );

  app.get('/applications/:app_id/announcements', { schema: { params: AppParams, response: answers({ 200: Type.Array(Announcement) }) }, config: { errors: APP } }, async (request) =>
    (await listAnnouncements(deps, ownerOf(request), request.params.app_id)).map(announcementJson),
  );

  app.patch(
    '/applications/:app_id/announcements/:announcement_id',
    {
      schema: { params: AnnouncementParams, body: PatchAnnouncement, response: answers({ 200: Announcement }) },
      config: { errors: [...APP, 'ANNOUNCEMENT_NOT_FOUND'] },
    },
    async (request) => {
      const b = request.body;
      const patch: Partial<AnnouncementInput> = {
        title: b.title,
        contentHtml: b.content_html,
        status: b.status,
        publishFrom: b.publish_from === undefined ? undefined : instantOf('publish_from', b.publish_from),
        publishUntil: untilOf(b.publish_until),
      };
      const { app_id, announcement_id } = request.params;
      return announcementJson(await updateAnnouncement(deps, ownerOf(request), app_id, announcement_id, patch, request.actor));
    },
  );

  app.delete(
    '/applications/:app_id/announcements/:announcement_id',
    { schema: { params: AnnouncementParams, response: answers({ 204: NoBody }) }, config: { errors: [...APP, 'ANNOUNCEMENT_NOT_FOUND'] } },
    async (request, reply) => {
      await deleteAnnouncement(deps, ownerOf(request), request.params.app_id, request.params.announcement_id, request.actor);
      return reply.code(204).send();
    },
  );
};
