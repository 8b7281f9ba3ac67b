import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../application/deps.js';
import { activateLicense } from '../../application/integration/activate-license.js';
import { appContext } from '../../application/integration/app-context.js';
import { changePassword } from '../../application/integration/change-password.js';
import { heartbeat } from '../../application/integration/heartbeat.js';
import { login, logout } from '../../application/integration/login.js';
import { refreshSession } from '../../application/integration/refresh-session.js';
import { borrowSeat, returnSeat } from '../../application/floating/borrow-seat.js';
import { requestLicenseFile } from '../../application/license-files/issue-license-file.js';
import { dropOwnDevice, listOwnDevices } from '../../application/integration/own-devices.js';
import { resetDevices } from '../../application/integration/reset-devices.js';
import { startTrial } from '../../application/integration/start-trial.js';
import { deleteOwnVariable, listOwnVariables, readOwnVariable, writeOwnVariable } from '../../application/integration/user-variables.js';
import { signUpWithLicense } from '../../application/integration/sign-up-with-license.js';
import { signUp } from '../../application/integration/sign-up.js';
import { loginRequired } from '../../domain/errors.js';
import { toIso } from '../../domain/time.js';
import { answerNotFound } from './errors.js';
import { bearer, callerOf, presentedUser } from './request-parts.js';
import { requestSigning } from './request-signing.js';
import { responseSigning } from './response-signing.js';
import { BorrowMinutes, DeviceInfo, HardwareId, LicenseCode, RefreshToken, Password, UserVariableBody, UserVariableName, Username, Uuid, closed, takesNoBody } from './schemas.js';
import { clientDownload } from '../../application/files/client-files.js';
import { sendFile } from './files/download.js';
import { adjustmentJson, appContextBody, leaseJson, licenseFileJson, membershipJson, ownDeviceJson, userSummaryJson, userVariableJson } from './views.js';
import { memberAfter, memberOf } from '../../application/member.js';
import { answers } from './answers.js';
import type { ErrorCode } from '../../domain/errors.js';
import { Activation, AppContext, FileBytes, Lease, LicenseFile, NextReset, NoBody, OwnDevice, RefreshedSession, Session, UserSummary, UserVariable } from './wire-schemas.js';

/** What presented user credentials (Bearer token or legacy headers) can be refused with (docs/api.md, GET /app_context). */
const USER_CREDENTIAL_ERRORS: readonly ErrorCode[] = [
  'LOGIN_REQUIRED',
  'TOKEN_AUTH_DISABLED',
  'INVALID_CREDENTIALS',
  'SESSION_EXPIRED',
  'LEGACY_AUTH_DISABLED',
  'LEGACY_AUTH_NEEDS_DEVICE_AUTH',
  'DEVICE_REQUIRED',
  'LICENSE_INVALID',
  'LICENSE_USED',
  'ACCOUNT_LOCKED',
  'DEVICE_LIMIT_REACHED',
  'SESSION_LIMIT_REACHED',
  'BANNED',
  'TIMED_OUT',
  'MEMBERSHIP_INACTIVE',
  'SEATS_EXHAUSTED',
];
/** What login, which takes no session nor legacy headers, cannot be refused with. */
const NOT_AT_LOGIN: readonly ErrorCode[] = ['LOGIN_REQUIRED', 'SESSION_EXPIRED', 'LEGACY_AUTH_DISABLED', 'LEGACY_AUTH_NEEDS_DEVICE_AUTH'];
/** A heartbeat takes a session token alone, checked as every token request is. */
const HEARTBEAT_ERRORS: readonly ErrorCode[] = ['LOGIN_REQUIRED', 'TOKEN_AUTH_DISABLED', 'INVALID_CREDENTIALS', 'SESSION_EXPIRED', 'BANNED', 'TIMED_OUT', 'MEMBERSHIP_INACTIVE'];
/** What a request that takes a session token only (no legacy headers) can be refused with. */
const SESSION_TOKEN_ERRORS: readonly ErrorCode[] = USER_CREDENTIAL_ERRORS.filter(
  (code) =>
    !['LEGACY_AUTH_DISABLED', 'LEGACY_AUTH_NEEDS_DEVICE_AUTH', 'LICENSE_INVALID', 'LICENSE_USED', 'ACCOUNT_LOCKED', 'DEVICE_REQUIRED', 'SESSION_LIMIT_REACHED', 'SEATS_EXHAUSTED'].includes(code),
);
/** Borrowing: the seat, the plan's terms and the machine's admission. */
const BORROW_ERRORS: readonly ErrorCode[] = [...SESSION_TOKEN_ERRORS, 'VALIDATION_FAILED', 'BORROWING_NOT_ALLOWED', 'SEATS_EXHAUSTED'];
/** The authenticated user's own variables (docs/api.md, User variables). */
const OWN_VARIABLE_ERRORS: readonly ErrorCode[] = [...USER_CREDENTIAL_ERRORS, 'VARIABLE_NOT_FOUND'];
/** A write of them is counted in the user's hourly budget too. */
const OWN_VARIABLE_SET_ERRORS: readonly ErrorCode[] = [...USER_CREDENTIAL_ERRORS, 'RATE_LIMITED'];
const OWN_VARIABLE_DELETE_ERRORS: readonly ErrorCode[] = [...OWN_VARIABLE_ERRORS, 'RATE_LIMITED'];

/** The integration API (docs/api.md, API reference), under /api/integration. */
export const integrationRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  // Every answer of an application is signed (docs/api.md, Response signing), unknown paths' too.
  const signing = responseSigning(app, deps);
  // Then the request's own signature, where the application requires one (docs/api.md, Request
  // signing): its refusals are answers of the application, so they are signed too.
  const signedRequests = requestSigning(app, deps);
  const applicationOf = async (request: FastifyRequest) => {
    const application = await signing.applicationOf(request);
    const checking = signedRequests.check(request, application);
    if (checking !== undefined) await checking;
    return application;
  };
  app.setNotFoundHandler(answerNotFound);

  app.post(
    '/sign_up',
    {
      schema: {
        body: Type.Object({ username: Username, password: Password, hardware_id: Type.Optional(HardwareId), device: Type.Optional(DeviceInfo) }, closed),
        response: answers({ 201: UserSummary }),
      },
      config: { errors: ['DEVICE_REQUIRED', 'BANNED', 'USERNAME_TAKEN', 'DEVICE_LIMIT_REACHED'] },
    },
    async (request, reply) => {
      const user = await signUp(deps, await applicationOf(request), request.body, callerOf(request), request.actor);
      return reply.code(201).send(userSummaryJson(await memberOf(deps, user), deps.clock.now()));
    },
  );

  app.post(
    '/sign_up_with_license_code',
    {
      schema: { body: Type.Object({ code: LicenseCode, hardware_id: Type.Optional(HardwareId), device: Type.Optional(DeviceInfo) }, closed), response: answers({ 201: UserSummary }) },
      config: { errors: ['DEVICE_REQUIRED', 'BANNED', 'LICENSE_INVALID', 'LICENSE_USED', 'LICENSE_ALREADY_REDEEMED', 'DEVICE_LIMIT_REACHED'] },
    },
    async (request, reply) => {
      const user = await signUpWithLicense(deps, await applicationOf(request), request.body, callerOf(request), request.actor);
      return reply.code(201).send(userSummaryJson(await memberOf(deps, user), deps.clock.now()));
    },
  );

  const Credentials = Type.Union([Type.Object({ username: Username, password: Password }, closed), Type.Object({ code: LicenseCode }, closed)]);

  app.post(
    '/auth/login',
    {
      schema: {
        body: Type.Object({ credentials: Credentials, hardware_id: Type.Optional(HardwareId), device: Type.Optional(DeviceInfo), remember: Type.Optional(Type.Boolean()) }, closed),
        response: answers({ 200: Session }),
      },
      config: { errors: USER_CREDENTIAL_ERRORS.filter((code) => !NOT_AT_LOGIN.includes(code)) },
    },
    async (request) => {
      const { token, expiresAt, member, refresh } = await login(deps, await applicationOf(request), request.body, callerOf(request), request.actor);
      const remembered = refresh === null ? {} : { refresh_token: refresh.token, refresh_expires_at: toIso(refresh.expiresAt) };
      return { session_token: token, expires_at: toIso(expiresAt), membership: membershipJson(member.user, member.plans, deps.clock.now()), ...remembered };
    },
  );

  // A remembered login's next session, by its refresh token alone (docs/machines.md, "Refresh tokens").
  app.post(
    '/auth/refresh',
    {
      schema: { body: Type.Object({ refresh_token: RefreshToken, hardware_id: HardwareId }, closed), response: answers({ 200: RefreshedSession }) },
      config: { errors: ['REFRESH_INVALID', 'REFRESH_REUSED', 'TOKEN_AUTH_DISABLED', 'SESSION_LIMIT_REACHED', 'BANNED', 'TIMED_OUT', 'MEMBERSHIP_INACTIVE'] },
    },
    async (request) => {
      const { token, expiresAt, member, refresh } = await refreshSession(deps, await applicationOf(request), request.body, callerOf(request), request.actor);
      return {
        session_token: token,
        expires_at: toIso(expiresAt),
        refresh_token: refresh.token,
        refresh_expires_at: toIso(refresh.expiresAt),
        membership: membershipJson(member.user, member.plans, deps.clock.now()),
      };
    },
  );

  app.post(
    '/auth/logout',
    { ...takesNoBody, schema: { response: answers({ 204: NoBody }) }, config: { errors: ['LOGIN_REQUIRED', 'INVALID_CREDENTIALS', 'SESSION_EXPIRED'] } },
    async (request, reply) => {
      const app = await applicationOf(request);
      const token = bearer(request);
      if (token === undefined) throw loginRequired();
      await logout(deps, app, token, request.actor);
      return reply.code(204).send();
    },
  );

  // A session token only: legacy headers hold seats of their own (docs/machines.md, "Heartbeats and leases").
  app.post(
    '/heartbeat',
    {
      schema: {
        body: Type.Union([Type.Object({ hardware_id: Type.Optional(HardwareId), device: Type.Optional(DeviceInfo) }, closed), Type.Null()]),
        response: answers({ 200: Lease }),
      },
      config: { errors: HEARTBEAT_ERRORS },
    },
    async (request) => {
      const application = await applicationOf(request);
      const token = bearer(request);
      if (token === undefined) throw loginRequired();
      return leaseJson(await heartbeat(deps, application, token, request.body ?? {}, callerOf(request), request.actor));
    },
  );

  // An offline license file for the authenticated user's machine (docs/signing.md, Offline license files).
  app.post(
    '/license_file',
    { schema: { body: Type.Object({ hardware_id: Type.Optional(HardwareId) }, closed), response: answers({ 200: LicenseFile }) }, config: { errors: USER_CREDENTIAL_ERRORS } },
    async (request) => licenseFileJson(await requestLicenseFile(deps, await applicationOf(request), presentedUser(request), request.body, callerOf(request), request.actor)),
  );

  // Floating seats (docs/machines.md, "Floating seats"): a seat held for a machine going offline.
  app.post(
    '/borrow',
    { schema: { body: Type.Object({ hardware_id: HardwareId, minutes: BorrowMinutes }, closed), response: answers({ 200: LicenseFile }) }, config: { errors: BORROW_ERRORS } },
    async (request) => licenseFileJson(await borrowSeat(deps, await applicationOf(request), bearer(request), request.body, callerOf(request), request.actor)),
  );

  app.post(
    '/return',
    { schema: { body: Type.Object({ hardware_id: HardwareId }, closed), response: answers({ 204: NoBody }) }, config: { errors: [...SESSION_TOKEN_ERRORS, 'BORROW_NOT_FOUND'] } },
    async (request, reply) => {
      await returnSeat(deps, await applicationOf(request), bearer(request), request.body, callerOf(request), request.actor);
      return reply.code(204).send();
    },
  );

  // Answered as JSON text made mostly of serialised pieces kept with the content cache (views.ts).
  app.get('/app_context', { schema: { response: answers({ 200: AppContext }) }, config: { errors: USER_CREDENTIAL_ERRORS, serialised: true } }, async (request, reply) => {
    const context = await appContext(deps, await applicationOf(request), presentedUser(request), callerOf(request), request.actor);
    // Text, which the route's schema types do not describe: answer-check.ts holds it to the schema.
    reply.header('content-type', 'application/json; charset=utf-8');
    return appContextBody(context) as never;
  });

  app.get(
    '/files/:file_id/download',
    {
      schema: { params: Type.Object({ file_id: Uuid }, closed), response: answers({ 200: FileBytes, 206: FileBytes, 304: NoBody }) },
      config: { errors: [...USER_CREDENTIAL_ERRORS, 'FILE_NOT_FOUND', 'RANGE_NOT_SATISFIABLE'] },
    },
    async (request, reply) => {
      const application = await applicationOf(request);
      const file = await clientDownload(deps, application, request.params.file_id, presentedUser(request), callerOf(request), request.actor);
      signing.streamsStoredFile(request, file);
      return sendFile(deps, request, reply, file);
    },
  );

  app.post(
    '/activate_license',
    {
      schema: {
        body: Type.Object({ code: LicenseCode, username: Username, password: Password, hardware_id: Type.Optional(HardwareId) }, closed),
        response: answers({ 200: Activation }),
      },
      config: { errors: ['INVALID_CREDENTIALS', 'DEVICE_REQUIRED', 'LICENSE_INVALID', 'LICENSE_USED', 'LICENSE_ALREADY_REDEEMED', 'ACCOUNT_LOCKED', 'BANNED', 'TIMED_OUT', 'DEVICE_LIMIT_REACHED'] },
    },
    async (request) => {
      const application = await applicationOf(request);
      const adjustment = await activateLicense(deps, application, request.body, callerOf(request), request.actor);
      const member = await memberAfter(deps, application.id, adjustment.userId);
      return { ...adjustmentJson(adjustment), membership: membershipJson(member.user, member.plans, deps.clock.now()) };
    },
  );

  // ---- User variables (docs/api.md, User variables): the authenticated user's own ----
  const VariableParams = Type.Object({ name: UserVariableName }, closed);

  app.get('/user_variables', { schema: { response: answers({ 200: Type.Array(UserVariable) }) }, config: { errors: USER_CREDENTIAL_ERRORS } }, async (request) =>
    (await listOwnVariables(deps, await applicationOf(request), presentedUser(request), callerOf(request), request.actor)).map(userVariableJson),
  );

  app.get('/user_variables/:name', { schema: { params: VariableParams, response: answers({ 200: UserVariable }) }, config: { errors: OWN_VARIABLE_ERRORS } }, async (request) =>
    userVariableJson(await readOwnVariable(deps, await applicationOf(request), presentedUser(request), callerOf(request), request.params.name, request.actor)),
  );

  app.put(
    '/user_variables/:name',
    { schema: { params: VariableParams, body: UserVariableBody, response: answers({ 200: UserVariable }) }, config: { errors: OWN_VARIABLE_SET_ERRORS } },
    async (request) => userVariableJson(await writeOwnVariable(deps, await applicationOf(request), presentedUser(request), callerOf(request), request.params.name, request.body.value, request.actor)),
  );

  app.delete('/user_variables/:name', { schema: { params: VariableParams, response: answers({ 204: NoBody }) }, config: { errors: OWN_VARIABLE_DELETE_ERRORS } }, async (request, reply) => {
    await deleteOwnVariable(deps, await applicationOf(request), presentedUser(request), callerOf(request), request.params.name, request.actor);
    return reply.code(204).send();
  });

  app.post(
    '/change_password',
    {
      schema: { body: Type.Object({ username: Username, password: Password, new_password: Password }, closed), response: answers({ 204: NoBody }) },
      config: { errors: ['INVALID_CREDENTIALS', 'ACCOUNT_LOCKED', 'PASSWORD_QUEUE_FULL', 'NOT_A_PASSWORD_USER', 'BANNED', 'TIMED_OUT'] },
    },
    async (request, reply) => {
      await changePassword(deps, await applicationOf(request), request.body, callerOf(request), request.actor);
      return reply.code(204).send();
    },
  );

  // Full credentials in the body, never a session token alone (docs/api.md, POST /reset_devices).
  app.post(
    '/reset_devices',
    {
      schema: { body: Credentials, response: answers({ 200: NextReset }) },
      config: { errors: ['INVALID_CREDENTIALS', 'LICENSE_INVALID', 'LICENSE_USED', 'ACCOUNT_LOCKED', 'BANNED', 'TIMED_OUT', 'MEMBERSHIP_INACTIVE', 'RESET_DISABLED', 'RESET_COOLDOWN'] },
    },
    async (request) => {
      const { nextResetAt } = await resetDevices(deps, await applicationOf(request), request.body, callerOf(request), request.actor);
      return { next_reset_at: toIso(nextResetAt) };
    },
  );

  // ---- The user's own devices (docs/api.md, GET and DELETE /devices) ----
  app.get('/devices', { schema: { response: answers({ 200: Type.Array(OwnDevice) }) }, config: { errors: USER_CREDENTIAL_ERRORS } }, async (request) =>
    (await listOwnDevices(deps, await applicationOf(request), presentedUser(request), callerOf(request), request.actor)).map(ownDeviceJson),
  );

  app.delete(
    '/devices/:device_id',
    {
      schema: { params: Type.Object({ device_id: Uuid }, closed), response: answers({ 204: NoBody }) },
      config: { errors: [...USER_CREDENTIAL_ERRORS, 'DEVICE_NOT_FOUND', 'RESET_DISABLED', 'RESET_COOLDOWN'] },
    },
    async (request, reply) => {
      await dropOwnDevice(deps, await applicationOf(request), presentedUser(request), callerOf(request), request.params.device_id, request.actor);
      return reply.code(204).send();
    },
  );

  // The application's trial for a user without a plan (docs/api.md, POST /start_trial): full
  // credentials, since such a user has no active membership to hold a session with.
  app.post(
    '/start_trial',
    {
      schema: { body: Type.Object({ credentials: Credentials, hardware_id: HardwareId }, closed), response: answers({ 200: UserSummary }) },
      config: {
        errors: ['INVALID_CREDENTIALS', 'LICENSE_INVALID', 'LICENSE_USED', 'ACCOUNT_LOCKED', 'BANNED', 'TIMED_OUT', 'DEVICE_LIMIT_REACHED', 'TRIAL_NOT_OFFERED', 'TRIAL_USED', 'TRIAL_NOT_ELIGIBLE'],
      },
    },
    async (request) => {
      const { user } = await startTrial(deps, await applicationOf(request), request.body, callerOf(request), request.actor);
      return userSummaryJson(await memberOf(deps, user), deps.clock.now());
    },
  );
};
