import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ADJUSTMENT_USERS_MAX,
  adjustMemberships,
  deleteDevice,
  getUserPage,
  liftTimeout,
  revokeSessions,
  searchUsers,
  setUserEntitlements,
  setUserPassword,
  timeOutUser,
  unlockUser,
  updateUserLimits,
} from '../../../application/console/users.js';
import { deleteUserVariable, getUserVariable, listUserVariables, putUserVariable } from '../../../application/console/user-variables.js';
import type { Deps } from '../../../application/deps.js';
import { issueLicenseFileAsOwner } from '../../../application/license-files/issue-license-file.js';
import { ENTITLEMENTS_PER_PLAN_MAX } from '../../../domain/plan.js';
import { toIso } from '../../../domain/time.js';
import { HardwareId, LicenseFileTtl, Password, Timestamp, UserVariableBody, UserVariableName, Uuid, closed } from '../schemas.js';
import { licenseFileJson, userAdminJson, userPageJson, userVariableJson } from '../views.js';
import { AppParams, MINUTES_MAX, Reason, instantOf, ownerOf } from './console-schemas.js';
import { answers } from '../answers.js';
import { Adjusted, AdminUser, LicenseFile, NoBody, UserPage, UserTimeout, UserVariable } from '../wire-schemas.js';
import type { ErrorCode } from '../../../domain/errors.js';

const APP: readonly ErrorCode[] = ['APPLICATION_NOT_FOUND'];
const USER: readonly ErrorCode[] = [...APP, 'USER_NOT_FOUND'];

// Query strings arrive as strings (no coercion anywhere): numbers are checked by pattern, then parsed.
const SearchQuery = Type.Object(
  {
    query: Type.Optional(Type.String({ maxLength: 256 })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$', maxLength: 5 })),
    offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', maxLength: 9 })),
  },
  closed,
);
const UserParams = Type.Object({ app_id: Uuid, user_id: Uuid }, closed);
const VariableParams = Type.Object({ app_id: Uuid, user_id: Uuid, name: UserVariableName }, closed);
const DeviceParams = Type.Object({ app_id: Uuid, user_id: Uuid, device_id: Uuid }, closed);
// null clears the user's override: the base plan's cap or the application's applies (docs/plans.md, "Caps").
const Cap = Type.Optional(Type.Union([Type.Integer(), Type.Null()]));
const LimitsBody = Type.Object({ allowed_number_of_devices: Cap, allowed_number_of_simultaneous_sessions: Cap }, closed);
// The codes as given count against the limit, as a plan's do (docs/plans.md, "Plans").
const EntitlementsBody = Type.Object({ entitlements: Type.Array(Type.String({ maxLength: 64 }), { maxItems: ENTITLEMENTS_PER_PLAN_MAX }) }, closed);
const TimeoutBody = Type.Object({ until: Timestamp, reason: Type.Optional(Type.Union([Reason, Type.Null()])) }, closed);
const AdjustmentBody = Type.Object(
  {
    user_ids: Type.Array(Uuid, { minItems: 1, maxItems: ADJUSTMENT_USERS_MAX }),
    minutes: Type.Optional(Type.Union([Type.Integer({ minimum: -MINUTES_MAX, maximum: MINUTES_MAX }), Type.Null()])),
    grant_lifetime: Type.Optional(Type.Boolean()),
    revoke_lifetime: Type.Optional(Type.Boolean()),
    reason: Type.Optional(Type.Union([Reason, Type.Null()])),
  },
  closed,
);

const LicenseFileBody = Type.Object({ hardware_id: HardwareId, ttl_minutes: Type.Optional(LicenseFileTtl) }, closed);

const intOrUndefined = (s: string | undefined) => (s === undefined ? undefined : Number.parseInt(s, 10));

export const userRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/applications/:app_id/users', { schema: { params: AppParams, querystring: SearchQuery, response: answers({ 200: Type.Array(AdminUser) }) }, config: { errors: APP } }, async (request) => {
    const found = await searchUsers(deps, ownerOf(request), request.params.app_id, {
      query: request.query.query,
      limit: intOrUndefined(request.query.limit),
      offset: intOrUndefined(request.query.offset),
    });
    const now = deps.clock.now();
    return found.map((d) => userAdminJson(d, now));
  });

  // The user page: the User object with the user's variables and device resets (docs/api.md, User variables).
  app.get('/applications/:app_id/users/:user_id', { schema: { params: UserParams, response: answers({ 200: UserPage }) }, config: { errors: USER } }, async (request) =>
    userPageJson(await getUserPage(deps, ownerOf(request), request.params.app_id, request.params.user_id), deps.clock.now()),
  );

  app.get('/applications/:app_id/users/:user_id/variables', { schema: { params: UserParams, response: answers({ 200: Type.Array(UserVariable) }) }, config: { errors: USER } }, async (request) =>
    (await listUserVariables(deps, ownerOf(request), request.params.app_id, request.params.user_id)).map(userVariableJson),
  );

  app.get(
    '/applications/:app_id/users/:user_id/variables/:name',
    { schema: { params: VariableParams, response: answers({ 200: UserVariable }) }, config: { errors: [...USER, 'VARIABLE_NOT_FOUND'] } },
    async (request) => {
      const { app_id, user_id, name } = request.params;
      return userVariableJson(await getUserVariable(deps, ownerOf(request), app_id, user_id, name));
    },
  );

  app.put(
    '/applications/:app_id/users/:user_id/variables/:name',
    { schema: { params: VariableParams, body: UserVariableBody, response: answers({ 200: UserVariable }) }, config: { errors: USER } },
    async (request) => {
      const { app_id, user_id, name } = request.params;
      return userVariableJson(await putUserVariable(deps, ownerOf(request), app_id, user_id, name, request.body.value, request.actor));
    },
  );

  app.delete(
    '/applications/:app_id/users/:user_id/variables/:name',
    { schema: { params: VariableParams, response: answers({ 204: NoBody }) }, config: { errors: [...USER, 'VARIABLE_NOT_FOUND'] } },
    async (request, reply) => {
      const { app_id, user_id, name } = request.params;
      await deleteUserVariable(deps, ownerOf(request), app_id, user_id, name, request.actor);
      return reply.code(204).send();
    },
  );

  app.put(
    '/applications/:app_id/users/:user_id/password',
    {
      schema: { params: UserParams, body: Type.Object({ password: Password }, closed), response: answers({ 204: NoBody }) },
      config: { errors: [...USER, 'NOT_A_PASSWORD_USER', 'PASSWORD_QUEUE_FULL'] },
    },
    async (request, reply) => {
      await setUserPassword(deps, ownerOf(request), request.params.app_id, request.params.user_id, request.body.password, request.actor);
      return reply.code(204).send();
    },
  );

  app.patch('/applications/:app_id/users/:user_id', { schema: { params: UserParams, body: LimitsBody, response: answers({ 200: AdminUser }) }, config: { errors: USER } }, async (request) => {
    const details = await updateUserLimits(deps, ownerOf(request), request.params.app_id, request.params.user_id, {
      allowedDevices: request.body.allowed_number_of_devices,
      allowedSessions: request.body.allowed_number_of_simultaneous_sessions,
    });
    return userAdminJson(details, deps.clock.now());
  });

  // The owner's direct grants, replaced whole (docs/api.md, PUT .../entitlements).
  app.put(
    '/applications/:app_id/users/:user_id/entitlements',
    { schema: { params: UserParams, body: EntitlementsBody, response: answers({ 200: AdminUser }) }, config: { errors: USER } },
    async (request) => userAdminJson(await setUserEntitlements(deps, ownerOf(request), request.params.app_id, request.params.user_id, request.body.entitlements), deps.clock.now()),
  );

  app.put('/applications/:app_id/users/:user_id/timeout', { schema: { params: UserParams, body: TimeoutBody, response: answers({ 200: UserTimeout }) }, config: { errors: USER } }, async (request) => {
    const timeout = await timeOutUser(
      deps,
      ownerOf(request),
      request.params.app_id,
      request.params.user_id,
      {
        until: instantOf('until', request.body.until),
        reason: request.body.reason,
      },
      request.actor,
    );
    return { timed_out_until: toIso(timeout.until), reason: timeout.reason };
  });

  app.delete('/applications/:app_id/users/:user_id/timeout', { schema: { params: UserParams, response: answers({ 204: NoBody }) }, config: { errors: USER } }, async (request, reply) => {
    await liftTimeout(deps, ownerOf(request), request.params.app_id, request.params.user_id, request.actor);
    return reply.code(204).send();
  });

  app.delete(
    '/applications/:app_id/users/:user_id/devices/:device_id',
    { schema: { params: DeviceParams, response: answers({ 204: NoBody }) }, config: { errors: [...USER, 'DEVICE_NOT_FOUND'] } },
    async (request, reply) => {
      const { app_id, user_id, device_id } = request.params;
      await deleteDevice(deps, ownerOf(request), app_id, user_id, device_id, request.actor);
      return reply.code(204).send();
    },
  );

  app.delete('/applications/:app_id/users/:user_id/lock', { schema: { params: UserParams, response: answers({ 204: NoBody }) }, config: { errors: USER } }, async (request, reply) => {
    await unlockUser(deps, ownerOf(request), request.params.app_id, request.params.user_id);
    return reply.code(204).send();
  });

  app.delete('/applications/:app_id/users/:user_id/sessions', { schema: { params: UserParams, response: answers({ 204: NoBody }) }, config: { errors: USER } }, async (request, reply) => {
    await revokeSessions(deps, ownerOf(request), request.params.app_id, request.params.user_id, request.actor);
    return reply.code(204).send();
  });

  // An offline license file for an air-gapped machine, its device registered as at login (docs/api.md, Offline license files).
  app.post(
    '/applications/:app_id/users/:user_id/license_files',
    {
      schema: { params: UserParams, body: LicenseFileBody, response: answers({ 201: LicenseFile }) },
      config: { errors: [...USER, 'BANNED', 'TIMED_OUT', 'MEMBERSHIP_INACTIVE', 'DEVICE_LIMIT_REACHED'] },
    },
    async (request, reply) => {
      const { app_id, user_id } = request.params;
      const issued = await issueLicenseFileAsOwner(
        deps,
        ownerOf(request),
        app_id,
        user_id,
        {
          hardwareId: request.body.hardware_id,
          ttlMinutes: request.body.ttl_minutes,
        },
        request.actor,
      );
      return reply.code(201).send(licenseFileJson(issued));
    },
  );

  app.post('/applications/:app_id/adjustments', { schema: { params: AppParams, body: AdjustmentBody, response: answers({ 200: Adjusted }) }, config: { errors: APP } }, async (request) => {
    const b = request.body;
    const adjusted = await adjustMemberships(
      deps,
      ownerOf(request),
      request.params.app_id,
      b.user_ids,
      {
        minutes: b.minutes ?? null,
        grantLifetime: b.grant_lifetime ?? false,
        revokeLifetime: b.revoke_lifetime ?? false,
        reason: b.reason ?? null,
      },
      request.actor,
    );
    return { adjusted };
  });
};
