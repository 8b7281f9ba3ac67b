// The console API's shapes: the server's own response schemas (adapters/http/wire-schemas.ts),
// not restated here, so a field renamed there breaks the dashboard's type-check.
import type { Static } from 'typebox';
import type * as Wire from '../../http/wire-schemas.js';

type Shape<K extends keyof typeof Wire> = Static<(typeof Wire)[K]>;

export type Owner = Shape<'Owner'>;
export type Session = Shape<'BrowserSession'>;

/** base64 of the raw Ed25519 public key clients pin (response_signing_public_key) is null until an old application is given one. */
export type Application = Shape<'Application'>;

/** What the settings form edits: the Application without what the server assigns. */
export type ApplicationSettings = Omit<Application, 'id' | 'api_key' | 'response_signing_public_key' | 'response_signing_key_id' | 'response_signing_previous_key_id' | 'created_at'>;

export type Credentials = Shape<'ApplicationCredentials'>;
export type Plan = Shape<'Plan'>;
export type PlanKind = Plan['kind'];
export type License = Shape<'License'>;
export type LicenseRedemption = Shape<'LicenseRedemption'>;
export type Adjustment = Shape<'Adjustment'>;
export type User = Shape<'AdminUser'>;
export type UserVariable = Shape<'UserVariable'>;
/** The console's user page: the User with its variables and device resets. */
export type UserPageData = Shape<'UserPage'>;
export type Ban = Shape<'Ban'>;
export type BanType = Ban['type'];
export type Variable = Shape<'Variable'>;
export type Announcement = Shape<'Announcement'>;
export type AnnouncementStatus = Announcement['status'];
export type FileRecord = Shape<'File'>;
export type Overview = Shape<'Overview'>;
export type AuditEntry = Shape<'AuditEntry'>;
export type AuditPage = Shape<'AuditPage'>;
export type ActorType = AuditEntry['actor']['type'];
export type WebhookEndpoint = Shape<'WebhookEndpoint'>;
/** A new endpoint or a rotated secret: the secret is in this answer only. */
export type WebhookWithSecret = Shape<'WebhookWithSecret'>;
export type WebhookDelivery = Shape<'WebhookDelivery'>;
export type WebhookAttempt = Shape<'WebhookAttempt'>;
