import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import {
  createApplication,
  deleteApplication,
  dropPreviousResponseSigningKey,
  listApplications,
  ownedApplication,
  rotateCredential,
  rotateResponseSigningKey,
  updateApplication,
} from '../../../application/console/applications.js';
import { applicationOverview } from '../../../application/console/overview.js';
import type { Deps } from '../../../application/deps.js';
import type { ApplicationSettings } from '../../../domain/application-settings.js';
import { Uuid, closed, takesNoBody } from '../schemas.js';
import { applicationJson, overviewJson, responseSigningKeyJson } from '../views.js';
import { AppParams, ownerOf } from './console-schemas.js';
import { answers } from '../answers.js';
import { Application, CreatedApplication, NoBody, Overview, ResponseSigningKey, RotatedCredential } from '../wire-schemas.js';

/** Every route on one application: another owner's, or none, is not found. */
const APP = { errors: ['APPLICATION_NOT_FOUND'] } as const;

const Name = Type.String({ minLength: 1, maxLength: 200 });

// Every setting is optional on the wire; ranges are checked by the domain (validateSettings), which
// names the offending field.
const settingsFields = {
  anonymous_access: Type.Optional(Type.Boolean()),
  device_auth: Type.Optional(Type.Boolean()),
  legacy_auth: Type.Optional(Type.Boolean()),
  token_auth: Type.Optional(Type.Boolean()),
  session_ttl_seconds: Type.Optional(Type.Integer()),
  default_allowed_devices: Type.Optional(Type.Integer()),
  default_allowed_sessions: Type.Optional(Type.Integer()),
  ban_propagation: Type.Optional(Type.Boolean()),
  ban_propagation_to_addresses: Type.Optional(Type.Boolean()),
  propagated_ip_ban_hours: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  password_min_length: Type.Optional(Type.Integer()),
  response_signing: Type.Optional(Type.Boolean()),
  request_signing: Type.Optional(Type.Boolean()),
  signature_window_seconds: Type.Optional(Type.Integer()),
  license_file_ttl_minutes: Type.Optional(Type.Integer()),
  max_user_variables: Type.Optional(Type.Integer()),
  device_reset_cooldown_hours: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  sign_ups_per_hour: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  expiry_notice_days: Type.Optional(Type.Integer()),
  heartbeat_seconds: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  refresh_ttl_days: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
};

const CreateBody = Type.Object({ name: Name, ...settingsFields }, closed);
// The trial plan is named by a patch only: a new application has no plans (docs/plans.md, "Trials").
const PatchBody = Type.Object({ name: Type.Optional(Name), ...settingsFields, trial_plan_id: Type.Optional(Type.Union([Uuid, Type.Null()])) }, closed);

/** The settings given in a body, in domain terms; absent fields stay absent. */
function settingsOf(body: Static<typeof PatchBody>): Partial<ApplicationSettings> {
  const pairs: Array<[keyof ApplicationSettings, unknown]> = [
    ['anonymousAccess', body.anonymous_access],
    ['deviceAuth', body.device_auth],
    ['legacyAuth', body.legacy_auth],
    ['tokenAuth', body.token_auth],
    ['sessionTtlSeconds', body.session_ttl_seconds],
    ['defaultAllowedDevices', body.default_allowed_devices],
    ['defaultAllowedSessions', body.default_allowed_sessions],
    ['banPropagation', body.ban_propagation],
    ['banPropagationToAddresses', body.ban_propagation_to_addresses],
    ['propagatedIpBanHours', body.propagated_ip_ban_hours],
    ['passwordMinLength', body.password_min_length],
    ['responseSigning', body.response_signing],
    ['requestSigning', body.request_signing],
    ['signatureWindowSeconds', body.signature_window_seconds],
    ['licenseFileTtlMinutes', body.license_file_ttl_minutes],
    ['maxUserVariables', body.max_user_variables],
    ['deviceResetCooldownHours', body.device_reset_cooldown_hours],
    ['signUpsPerHour', body.sign_ups_per_hour],
    ['expiryNoticeDays', body.expiry_notice_days],
    ['trialPlanId', body.trial_plan_id],
    ['heartbeatSeconds', body.heartbeat_seconds],
    ['refreshTtlDays', body.refresh_ttl_days],
  ];
  return Object.fromEntries(pairs.filter(([, v]) => v !== undefined));
}

export const applicationRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/applications', { schema: { body: CreateBody, response: answers({ 201: CreatedApplication }) } }, async (request, reply) => {
    const { application, credentials } = await createApplication(deps, ownerOf(request), {
      name: request.body.name,
      settings: settingsOf(request.body),
    });
    return reply.code(201).send({
      application: applicationJson(application),
      credentials: {
        api_key: credentials.apiKey,
        api_secret: credentials.apiSecret,
        admin_api_key: credentials.adminApiKey,
        files_encryption_key: credentials.filesEncryptionKey,
        request_signing_key: credentials.requestSigningKey,
      },
    });
  });

  app.get('/applications', { schema: { response: answers({ 200: Type.Array(Application) }) } }, async (request) => (await listApplications(deps, ownerOf(request))).map(applicationJson));

  app.get('/applications/:app_id', { schema: { params: AppParams, response: answers({ 200: Application }) }, config: APP }, async (request) =>
    applicationJson(await ownedApplication(deps, ownerOf(request), request.params.app_id)),
  );

  app.get('/applications/:app_id/overview', { schema: { params: AppParams, response: answers({ 200: Overview }) }, config: APP }, async (request) =>
    overviewJson(await applicationOverview(deps, ownerOf(request), request.params.app_id)),
  );

  const patchConfig = { errors: [...APP.errors, 'PLAN_NOT_FOUND', 'PLAN_ARCHIVED'] } as const;
  app.patch('/applications/:app_id', { schema: { params: AppParams, body: PatchBody, response: answers({ 200: Application }) }, config: patchConfig }, async (request) => {
    const updated = await updateApplication(
      deps,
      ownerOf(request),
      request.params.app_id,
      {
        ...(request.body.name === undefined ? {} : { name: request.body.name }),
        settings: settingsOf(request.body),
      },
      request.actor,
    );
    return applicationJson(updated);
  });

  app.delete('/applications/:app_id', { schema: { params: AppParams, response: answers({ 204: NoBody }) }, config: APP }, async (request, reply) => {
    await deleteApplication(deps, ownerOf(request), request.params.app_id);
    return reply.code(204).send();
  });

  app.post(
    '/applications/:app_id/credentials/:kind/rotate',
    {
      ...takesNoBody,
      schema: {
        params: Type.Object({ app_id: Uuid, kind: Type.Enum(['api_secret', 'admin_api_key', 'request_signing_key']) }, closed),
        response: answers({ 200: RotatedCredential }),
      },
      config: APP,
    },
    async (request) => {
      const { kind } = request.params;
      const value = await rotateCredential(deps, ownerOf(request), request.params.app_id, kind, request.actor);
      return { [kind]: value };
    },
  );

  // The response signing key rotates in two steps (docs/api.md, Response signing): a new key signs
  // beside the old one until the owner removes the old one, once clients pin the new one.
  app.post(
    '/applications/:app_id/credentials/response_signing_key/rotate',
    { ...takesNoBody, schema: { params: AppParams, response: answers({ 200: ResponseSigningKey }) }, config: APP },
    async (request) => responseSigningKeyJson(await rotateResponseSigningKey(deps, ownerOf(request), request.params.app_id, request.actor)),
  );

  app.delete('/applications/:app_id/credentials/response_signing_key/previous', { schema: { params: AppParams, response: answers({ 204: NoBody }) }, config: APP }, async (request, reply) => {
    await dropPreviousResponseSigningKey(deps, ownerOf(request), request.params.app_id);
    return reply.code(204).send();
  });
};
