// Form controls with their labels, so every page's forms look and read alike.
import type { ComponentChildren, JSX } from 'preact';

interface TextProps {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'number' | 'search' | 'datetime-local';
  name?: string;
  required?: boolean;
  placeholder?: string;
  min?: number;
  max?: number;
  hint?: string;
  autoComplete?: 'username' | 'current-password' | 'new-password';
}

export function TextField({ label, value, onInput, hint, autoComplete, ...rest }: TextProps) {
  // Preact's input typings are a union keyed by a literal `type`; ours is chosen at run time.
  const attributes = { ...rest, autocomplete: autoComplete } as JSX.IntrinsicElements['input'];
  return (
    <label class="field">
      <span>{label}</span>
      <input {...attributes} value={value} onInput={(e) => onInput(e.currentTarget.value)} />
      {hint && <small>{hint}</small>}
    </label>
  );
}

export function CheckField({ label, checked, onChange, hint, name }: { label: string; checked: boolean; onChange: (v: boolean) => void; hint?: string; name?: string }) {
  return (
    <label class="check">
      <input type="checkbox" name={name} checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      <span>
        {label}
        {hint && <small>{hint}</small>}
      </span>
    </label>
  );
}

export function SelectField<T extends string>({ label, value, options, onChange, name }: { label: string; value: T; options: Array<[T, string]>; onChange: (v: T) => void; name?: string }) {
  return (
    <label class="field">
      <span>{label}</span>
      <select name={name} value={value} onChange={(e) => onChange(e.currentTarget.value as T)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Card({ title, children, actions }: { title?: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      {(title || actions) && (
        <header class="card-header">
          {title && <h2>{title}</h2>}
          {actions && <div class="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A form's buttons: Cancel when editing, then the submit button. */
export function FormActions({ label, busy, disabled, onCancel }: { label: string; busy: boolean; disabled?: boolean; onCancel?: (() => void) | undefined }) {
  return (
    <div class="actions">
      {onCancel && (
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
      )}
      <button type="submit" class="btn btn-primary" disabled={busy || disabled}>
        {label}
      </button>
    </div>
  );
}
