import { useState } from 'preact/hooks';

/** Copies a value to the clipboard, falling back on selecting a hidden field where the API is missing. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      const field = document.createElement('textarea');
      field.value = value;
      document.body.append(field);
      field.select();
      document.execCommand('copy');
      field.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" class="btn btn-small" onClick={() => void copy()}>
      {copied ? 'Copied' : label}
    </button>
  );
}

const SECRET_NAMES: Record<string, string> = {
  api_key: 'API key',
  api_secret: 'API secret',
  admin_api_key: 'Admin API key',
  files_encryption_key: 'Files encryption key',
  request_signing_key: 'Request signing key',
  webhook_secret: 'Signing secret',
};

const CREDENTIALS_NOTE = 'Keep them somewhere safe; a lost API secret or admin API key can be rotated in the settings.';

/** Secrets shown once (credentials at creation and rotation, a webhook's signing secret), each with a copy button. */
export function SecretsOnce({ title, secrets, onDone, note = CREDENTIALS_NOTE }: { title: string; secrets: Record<string, string>; onDone: () => void; note?: string }) {
  return (
    <section class="card secrets" aria-live="polite">
      <h2>{title}</h2>
      <div class="banner banner-warning">
        <strong>Copy these now: you will not see them again.</strong> {note}
      </div>
      <dl class="secret-list">
        {Object.entries(secrets).map(([name, value]) => (
          <div key={name} class="secret-row">
            <dt>{SECRET_NAMES[name] ?? name}</dt>
            <dd>
              <code data-secret={name}>{value}</code>
              <CopyButton value={value} />
            </dd>
          </div>
        ))}
      </dl>
      <button type="button" class="btn btn-primary" onClick={onDone}>
        I have saved them
      </button>
    </section>
  );
}
