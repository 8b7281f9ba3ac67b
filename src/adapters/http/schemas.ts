import { Type } from '@fastify/type-provider-typebox';
import { PASSWORD_MAX_WIRE_LENGTH } from '../../domain/credentials-policy.js';
import { validationError } from '../../domain/errors.js';

// Every body is closed (additionalProperties: false) and every string bounded.
export const closed = { additionalProperties: false } as const;

export const Username = Type.String({ minLength: 1, maxLength: 256 });
export const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_WIRE_LENGTH });
export const LicenseCode = Type.String({ minLength: 1, maxLength: 100 });
export const HardwareId = Type.String({ minLength: 1, maxLength: 256 });
/** A refresh token as issued is 49 characters; the bound only keeps junk short. */
export const RefreshToken = Type.String({ minLength: 1, maxLength: 256 });
/** A borrow's minutes; the plan's max_borrow_minutes bounds it (assertBorrowable). */
export const BorrowMinutes = Type.Integer();
/** An owner's override of license_file_ttl_minutes; its range is the domain's (validateLicenseFileTtl). */
export const LicenseFileTtl = Type.Integer();
export const Uuid = Type.String({ format: 'uuid', maxLength: 36 });
/** What a client says about its machine (docs/machines.md, "Devices"). Lengths and control
 * characters are the domain's to refuse (acceptDeviceInfo, 422), so only a generous bound here. */
const DeviceText = Type.String({ maxLength: 4096 });
export const DeviceInfo = Type.Object({ name: Type.Optional(DeviceText), platform: Type.Optional(DeviceText), app_version: Type.Optional(DeviceText) }, closed);
/** A user variable's name (docs/api.md, User variables); the domain checks it again (acceptUserVariableName). */
export const UserVariableName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]{1,64}$' });
/** 64 KiB counted in UTF-8 bytes by the domain (acceptUserVariableValue); no more characters than that. */
export const UserVariableBody = Type.Object({ value: Type.String({ maxLength: 65_536 }) }, closed);
export const Timestamp = Type.String({ format: 'date-time', maxLength: 40 });

/** For routes that take no body: none at all, or an empty JSON object. JSON schema cannot say
 * "absent", so this is a hook rather than a body schema. */
export const takesNoBody = {
  preValidation: async (request: { body: unknown }) => {
    const body = request.body;
    const empty = body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
    if (!empty) throw validationError('body', 'this endpoint takes no body');
  },
};
