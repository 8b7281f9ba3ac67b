// Webhook endpoints of an application (docs/api.md, Webhooks), under /api/console.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createWebhook, deleteWebhook, listWebhookDeliveries, listWebhooks, redeliverWebhook, rotateWebhookSecret, testWebhook, updateWebhook } from '../../../application/console/webhooks.js';
import type { Deps } from '../../../application/deps.js';
import type { ErrorCode } from '../../../domain/errors.js';
import { answers } from '../answers.js';
import { closed, takesNoBody, Uuid } from '../schemas.js';
import { webhookDeliveryJson, webhookEndpointJson } from '../views.js';
import { NoBody, WebhookDelivery, WebhookEndpoint, WebhookWithSecret } from '../wire-schemas.js';
import { AppParams, ownerOf } from './console-schemas.js';

const APP: readonly ErrorCode[] = ['APPLICATION_NOT_FOUND'];
const ENDPOINT: readonly ErrorCode[] = [...APP, 'WEBHOOK_NOT_FOUND'];

const Url = Type.String({ minLength: 1, maxLength: 2048 });
/** ["*"] or event names; the use case checks each name against WEBHOOK_EVENTS. */
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 64 });
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);

const CreateBody = Type.Object({ url: Url, events: Events, description: Type.Optional(Description) }, closed);
const PatchBody = Type.Object({ url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) }, closed);
const EndpointParams = Type.Object({ app_id: Uuid, webhook_id: Uuid }, closed);
const DeliveryParams = Type.Object({ app_id: Uuid, webhook_id: Uuid, delivery_id: Uuid }, closed);

const withSecret = (r: Awaited<ReturnType<typeof createWebhook>>) => ({ endpoint: webhookEndpointJson(r.endpoint), secret: r.secret });

export const webhookRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/applications/:app_id/webhooks',
    { schema: { params: AppParams, body: CreateBody, response: answers({ 201: WebhookWithSecret }) }, config: { errors: [...APP, 'WEBHOOK_URL_REFUSED', 'WEBHOOK_LIMIT_REACHED'] } },
    async (request, reply) => {
      const created = await createWebhook(deps, ownerOf(request), request.params.app_id, request.body, request.actor);
      return reply.code(201).send(withSecret(created));
    },
  );

  app.get('/applications/:app_id/webhooks', { schema: { params: AppParams, response: answers({ 200: Type.Array(WebhookEndpoint) }) }, config: { errors: APP } }, async (request) =>
    (await listWebhooks(deps, ownerOf(request), request.params.app_id)).map(webhookEndpointJson),
  );

  app.patch(
    '/applications/:app_id/webhooks/:webhook_id',
    { schema: { params: EndpointParams, body: PatchBody, response: answers({ 200: WebhookEndpoint }) }, config: { errors: [...ENDPOINT, 'WEBHOOK_URL_REFUSED'] } },
    async (request) => webhookEndpointJson(await updateWebhook(deps, ownerOf(request), request.params.app_id, request.params.webhook_id, request.body, request.actor)),
  );

  app.delete('/applications/:app_id/webhooks/:webhook_id', { schema: { params: EndpointParams, response: answers({ 204: NoBody }) }, config: { errors: ENDPOINT } }, async (request, reply) => {
    await deleteWebhook(deps, ownerOf(request), request.params.app_id, request.params.webhook_id, request.actor);
    return reply.code(204).send();
  });

  app.post(
    '/applications/:app_id/webhooks/:webhook_id/rotate_secret',
    { ...takesNoBody, schema: { params: EndpointParams, response: answers({ 200: WebhookWithSecret }) }, config: { errors: ENDPOINT } },
    async (request) => withSecret(await rotateWebhookSecret(deps, ownerOf(request), request.params.app_id, request.params.webhook_id, request.actor)),
  );

  app.post(
    '/applications/:app_id/webhooks/:webhook_id/test',
    { ...takesNoBody, schema: { params: EndpointParams, response: answers({ 204: NoBody }) }, config: { errors: [...ENDPOINT, 'WEBHOOK_TEST_LIMITED'] } },
    async (request, reply) => {
      await testWebhook(deps, ownerOf(request), request.params.app_id, request.params.webhook_id, request.actor);
      return reply.code(204).send();
    },
  );

  app.get(
    '/applications/:app_id/webhooks/:webhook_id/deliveries',
    { schema: { params: EndpointParams, response: answers({ 200: Type.Array(WebhookDelivery) }) }, config: { errors: ENDPOINT } },
    async (request) => (await listWebhookDeliveries(deps, ownerOf(request), request.params.app_id, request.params.webhook_id)).map(webhookDeliveryJson),
  );

  app.post(
    '/applications/:app_id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
    { ...takesNoBody, schema: { params: DeliveryParams, response: answers({ 204: NoBody }) }, config: { errors: [...ENDPOINT, 'WEBHOOK_DELIVERY_NOT_FOUND'] } },
    async (request, reply) => {
      await redeliverWebhook(deps, ownerOf(request), request.params.app_id, request.params.webhook_id, request.params.delivery_id);
      return reply.code(204).send();
    },
  );
};
