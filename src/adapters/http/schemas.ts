import { Type } from '@fastify/type-provider-typebox';
import { PASSWORD_MAX_WIRE_LENGTH } from '../../domain/credentials-policy.js';

// Every body is closed (additionalProperties: false) and every string bounded.
export const closed = { additionalProperties: false } as const;

export const Username = Type.String({ minLength: 1, maxLength: 256 });
export const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_WIRE_LENGTH });
export const LicenseCode = Type.String({ minLength: 1, maxLength: 100 });
export const HardwareId = Type.String({ minLength: 1, maxLength: 256 });
export const Uuid = Type.String({ format: 'uuid', maxLength: 36 });
export const Timestamp = Type.String({ format: 'date-time', maxLength: 40 });
