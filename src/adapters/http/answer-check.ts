// Holds every JSON answer to its route's schema and every error to its operation's codes (tests
// turn it on through buildHttpApp's checkAnswers): Fastify's serialiser drops what a schema lacks
// and never fails, so a view and its schema, or a route and its errors, could drift apart unnoticed.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { ErrorCode } from '../../domain/errors.js';
import { errorCodesOf } from './openapi.js';

/** The schema a route declares for a status: exact, then its class (`4xx`), then `default`. */
export function declaredSchema(response: Record<string, unknown> | undefined, status: number): TSchema | undefined {
  if (response === undefined) return undefined;
  return (response[String(status)] ?? response[`${String(status)[0]}xx`] ?? response['default']) as TSchema | undefined;
}

export class AnswerMismatch extends Error {}

/** Checks answers against their declared schemas, one compiled validator per schema. */
export function createAnswerChecker() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const compiled = new WeakMap<object, ValidateFunction>();
  const validatorOf = (schema: TSchema) => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      // JSON round trip: TypeBox's symbol-keyed markers are not JSON schema.
      validate = ajv.compile(JSON.parse(JSON.stringify(schema)) as object);
      compiled.set(schema, validate);
    }
    return validate;
  };
  return {
    /** Throws AnswerMismatch when `body` is not what `response` declares for `status` (or nothing is declared). */
    check(route: string, response: Record<string, unknown> | undefined, status: number, body: unknown): void {
      const schema = declaredSchema(response, status);
      if (schema === undefined) throw new AnswerMismatch(`${route} answered ${status} but declares no schema for it`);
      const validate = validatorOf(schema);
      if (!validate(JSON.parse(JSON.stringify(body)))) {
        throw new AnswerMismatch(`${route} answered ${status} with a body its schema refuses: ${ajv.errorsText(validate.errors)}`);
      }
    },
  };
}

/** The hook: every JSON answer of a documented route, before serialisation, against its schema. */
export function checkAnswers(app: FastifyInstance): void {
  const checker = createAnswerChecker();
  /** Runs a check for the hook; a mismatch fails the request (loud on purpose: the test that made it fails on the 500). */
  const checked = (done: (error: Error | null, payload?: unknown) => void, payload: unknown, check: () => void) => {
    try {
      check();
      done(null, payload);
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      done(error as Error);
    }
  };
  app.addHook('preSerialization', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    const options = request.routeOptions;
    const url = options.url;
    if (options.config?.undocumented || url === undefined) return done(null, payload);
    checked(done, payload, () => {
      const route = `${request.method} ${url}`;
      checker.check(route, options.schema?.response as Record<string, unknown> | undefined, reply.statusCode, payload);
      // An error the route's operation does not list would be a lie of the OpenAPI document.
      const code = reply.statusCode >= 400 ? (payload as { error_code?: string }).error_code : undefined;
      if (code !== undefined && !errorCodesOf({ method: request.method, url, config: options.config }).includes(code as ErrorCode)) {
        throw new AnswerMismatch(`${route} answered ${code}, which its operation does not list (config.errors, openapi.ts)`);
      }
    });
  });
  // A route that serialises its own success answer skips the hook above: its text is parsed and
  // held to the schema here, before it is sent.
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    const options = request.routeOptions;
    if (options.config?.serialised !== true || reply.statusCode >= 400 || typeof payload !== 'string') return done(null, payload);
    checked(done, payload, () => checker.check(`${request.method} ${options.url ?? ''}`, options.schema?.response as Record<string, unknown> | undefined, reply.statusCode, JSON.parse(payload)));
  });
}
