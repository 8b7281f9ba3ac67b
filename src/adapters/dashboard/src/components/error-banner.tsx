import type { ApiError } from '../api.js';

const FIELD_NAMES: Record<string, string> = {
  count: 'How many',
  minutes: 'Duration',
  name: 'Name',
  value: 'Value',
  until: 'Until',
  email: 'Email',
  password: 'Password',
  app_id: 'Application',
  user_ids: 'Selected users',
  content_html: 'Content',
  publish_from: 'Shown from',
  publish_until: 'Shown until',
  session_ttl_seconds: 'Session TTL',
  default_allowed_devices: 'Default allowed devices',
  default_allowed_sessions: 'Default allowed sessions',
  password_min_length: 'Minimum password length',
  allowed_number_of_devices: 'Allowed devices',
  allowed_number_of_simultaneous_sessions: 'Allowed simultaneous sessions',
  url: 'URL',
  duration_minutes: 'Duration',
  grace_minutes: 'Grace',
  max_devices: 'Devices',
  max_sessions: 'Sessions',
  entitlements: 'Entitlements',
};

export function fieldLabel(field: string): string {
  // An item of a list (entitlements.3) is named by its list.
  const last =
    field
      .split(/[./]/)
      .filter((part) => part !== '' && !/^\d+$/.test(part))
      .pop() || field;
  const name = FIELD_NAMES[last] ?? last.replace(/_/g, ' ');
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The schema validator's wording, said the way a person would. */
const PHRASES: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^must match pattern /, () => 'contains characters that are not allowed'],
  [/^must match format "uuid"/, () => 'is not a valid id'],
  [/^must match format "date-time"/, () => 'is not a valid date and time'],
  [/^must match format "(.+)"/, (m) => `is not a valid ${m[1]}`],
  [/^must be >= (\S+)/, (m) => `must be at least ${Number(m[1]).toLocaleString()}`],
  [/^must be <= (\S+)/, (m) => `must be at most ${Number(m[1]).toLocaleString()}`],
  [/^must be > (\S+)/, (m) => `must be more than ${Number(m[1]).toLocaleString()}`],
  [/^must be < (\S+)/, (m) => `must be less than ${Number(m[1]).toLocaleString()}`],
  [/^must NOT have fewer than 1 characters?/, () => 'must not be empty'],
  [/^must NOT have fewer than (\d+) characters/, (m) => `must be at least ${m[1]} characters long`],
  [/^must NOT have more than (\d+) characters/, (m) => `must be at most ${m[1]} characters long`],
  [/^must NOT have fewer than (\d+) items/, (m) => `needs at least ${m[1]}`],
  [/^must NOT have more than (\d+) items/, (m) => `can hold at most ${m[1]}`],
  [/^must be integer/, () => 'must be a whole number'],
  [/^must be number/, () => 'must be a number'],
  [/^must be equal to one of the allowed values/, () => 'is not one of the accepted choices'],
];

export function humanize(message: string): string {
  for (const [pattern, say] of PHRASES) {
    const m = message.match(pattern);
    if (m) return say(m);
  }
  return message;
}

/** The API's message, and the fields it names, in a banner people can read. */
export function ErrorBanner({ error }: { error: ApiError | null }) {
  if (!error) return null;
  const fields = error.fieldErrors;
  // With field errors the API's message only repeats the first of them: say it once, per field.
  const headline = fields.length > 0 ? (fields.length === 1 ? 'This value was not accepted:' : 'These values were not accepted:') : error.message;
  return (
    <div class="banner banner-error" role="alert">
      <strong>{headline}</strong>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.field + f.message}>
              {fieldLabel(f.field)} {humanize(f.message)}.
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
