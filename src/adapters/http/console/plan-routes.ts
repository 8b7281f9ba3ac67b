// Plans of an application (docs/api.md, Plans), under /api/console. Ranges and codes are checked by
// the domain (domain/plan.ts), which names the offending field.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { createPlan, deletePlan, getPlan, listPlans, updatePlan } from '../../../application/console/plans.js';
import type { Deps } from '../../../application/deps.js';
import type { ErrorCode } from '../../../domain/errors.js';
import { ENTITLEMENTS_PER_PLAN_MAX, PLAN_NAME_MAX, type PlanPatch } from '../../../domain/plan.js';
import { answers } from '../answers.js';
import { closed, Uuid } from '../schemas.js';
import { planJson } from '../views.js';
import { NoBody, Plan } from '../wire-schemas.js';
import { AppParams, ownerOf } from './console-schemas.js';

const APP: readonly ErrorCode[] = ['APPLICATION_NOT_FOUND'];
const PLAN: readonly ErrorCode[] = [...APP, 'PLAN_NOT_FOUND'];

const Minutes = Type.Union([Type.Integer(), Type.Null()]);
const Cap = Type.Optional(Type.Union([Type.Integer(), Type.Null()]));
// The codes as given count against the limit (docs/plans.md), so the schema's bound is the domain's.
const Entitlements = Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: ENTITLEMENTS_PER_PLAN_MAX }));
const terms = {
  entitlements: Entitlements,
  max_devices: Cap,
  max_sessions: Cap,
  seats: Type.Optional(Type.Integer()),
  grace_minutes: Type.Optional(Type.Integer()),
  trial: Type.Optional(Type.Boolean()),
  floating: Type.Optional(Type.Boolean()),
  max_borrow_minutes: Type.Optional(Type.Integer()),
};
const Name = Type.String({ minLength: 1, maxLength: PLAN_NAME_MAX });
const Kind = Type.Enum(['base', 'add_on']);
const CreateBody = Type.Object({ name: Name, kind: Kind, duration_minutes: Minutes, ...terms }, closed);
const PatchBody = Type.Object({ name: Type.Optional(Name), kind: Type.Optional(Kind), duration_minutes: Type.Optional(Minutes), ...terms, archived: Type.Optional(Type.Boolean()) }, closed);
const PlanParams = Type.Object({ app_id: Uuid, plan_id: Uuid }, closed);

/** A body in domain terms; absent fields stay absent. */
const patchOf = (b: Static<typeof PatchBody>): PlanPatch => ({
  name: b.name,
  kind: b.kind,
  durationMinutes: b.duration_minutes,
  entitlements: b.entitlements,
  maxDevices: b.max_devices,
  maxSessions: b.max_sessions,
  seats: b.seats,
  graceMinutes: b.grace_minutes,
  trial: b.trial,
  floating: b.floating,
  maxBorrowMinutes: b.max_borrow_minutes,
  archived: b.archived,
});

export const planRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/applications/:app_id/plans',
    { schema: { params: AppParams, body: CreateBody, response: answers({ 201: Plan }) }, config: { errors: [...APP, 'PLAN_NAME_TAKEN'] } },
    async (request, reply) => {
      const { name, kind, duration_minutes: durationMinutes } = request.body;
      const plan = await createPlan(deps, ownerOf(request), request.params.app_id, { ...patchOf(request.body), name, kind, durationMinutes });
      return reply.code(201).send(planJson(plan));
    },
  );

  app.get('/applications/:app_id/plans', { schema: { params: AppParams, response: answers({ 200: Type.Array(Plan) }) }, config: { errors: APP } }, async (request) =>
    (await listPlans(deps, ownerOf(request), request.params.app_id)).map(planJson),
  );

  app.get('/applications/:app_id/plans/:plan_id', { schema: { params: PlanParams, response: answers({ 200: Plan }) }, config: { errors: PLAN } }, async (request) =>
    planJson(await getPlan(deps, ownerOf(request), request.params.app_id, request.params.plan_id)),
  );

  app.patch(
    '/applications/:app_id/plans/:plan_id',
    { schema: { params: PlanParams, body: PatchBody, response: answers({ 200: Plan }) }, config: { errors: [...PLAN, 'PLAN_NAME_TAKEN'] } },
    async (request) => planJson(await updatePlan(deps, ownerOf(request), request.params.app_id, request.params.plan_id, patchOf(request.body))),
  );

  app.delete('/applications/:app_id/plans/:plan_id', { schema: { params: PlanParams, response: answers({ 204: NoBody }) }, config: { errors: [...PLAN, 'PLAN_IN_USE'] } }, async (request, reply) => {
    await deletePlan(deps, ownerOf(request), request.params.app_id, request.params.plan_id);
    return reply.code(204).send();
  });
};
