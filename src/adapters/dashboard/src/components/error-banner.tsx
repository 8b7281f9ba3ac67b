import type { ApiError } from '../api.js';

const FIELD_NAMES: Record<string, string> = {
  count: 'Count',
  minutes: 'Duration',
  name: 'Name',
  value: 'Value',
  until: 'Until',
  email: 'Email',
  password: 'Password',
};

function fieldLabel(field: string): string {
  const last = field.replace(/^\/?(body\/)?/, '').split(/[./]/).pop() ?? field;
  return FIELD_NAMES[last] ?? last.replace(/_/g, ' ');
}

/** The API's message, and the fields it names, in a banner people can read. */
export function ErrorBanner({ error }: { error: ApiError | null }) {
  if (!error) return null;
  return (
    <div class="banner banner-error" role="alert">
      <strong>{error.message}</strong>
      {error.fieldErrors.length > 0 && (
        <ul>
          {error.fieldErrors.map((f) => (
            <li key={f.field + f.message}>
              {fieldLabel(f.field)}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
