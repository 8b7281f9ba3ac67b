// An upload (or a replacement of a file's contents) with a progress bar.
import { useRef, useState } from 'preact/hooks';
import { upload } from '../api.js';
import type { FileRecord } from '../types.js';
import { ErrorBanner } from './error-banner.js';
import { CheckField, FormActions, TextField } from './fields.js';
import { useAction } from './use-load.js';

interface Props {
  /** POST to the files list, or PUT to one file to replace its contents. */
  method: 'POST' | 'PUT';
  path: string;
  replacing?: FileRecord;
  onUploaded: (f: FileRecord) => void;
  onCancel?: () => void;
}

export function UploadForm({ method, path, replacing, onUploaded, onCancel }: Props) {
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState(replacing?.name ?? '');
  const [isPublic, setPublic] = useState(replacing?.is_public ?? false);
  const [encrypted, setEncrypted] = useState(replacing?.store_encrypted ?? false);
  const [progress, setProgress] = useState<number | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const action = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    void action.run(async () => {
      const form = new FormData();
      // Text fields first: the server reads them before the file's bytes arrive.
      form.append('name', name.trim() || file.name);
      form.append('is_public', String(isPublic));
      form.append('store_encrypted', String(encrypted));
      form.append('file', file);
      setProgress(0);
      try {
        onUploaded(await upload<FileRecord>(method, path, form, setProgress));
        setFile(null);
        setName(replacing?.name ?? '');
        if (input.current) input.current.value = '';
      } finally {
        setProgress(null);
      }
    });
  };

  return (
    <form onSubmit={submit}>
      <ErrorBanner error={action.error} />
      <div class="form-row">
        <label class="field">
          <span>File</span>
          <input
            ref={input}
            type="file"
            name="file"
            required
            onChange={(e) => {
              const chosen = e.currentTarget.files?.[0] ?? null;
              setFile(chosen);
              if (chosen && !replacing && !name) setName(chosen.name);
            }}
          />
        </label>
        <TextField label="Name" name="name" value={name} onInput={setName} required hint="What clients see; unique in the application." />
      </div>
      <CheckField label="Public" name="is_public" checked={isPublic} onChange={setPublic} hint="Anonymous clients may download it." />
      <CheckField label="Store encrypted" name="store_encrypted" checked={encrypted} onChange={setEncrypted} hint="Stored and served encrypted with the application's files key." />
      {progress !== null && (
        <div class="progress">
          <progress max={1} value={progress} aria-label="Upload progress" />
          <span>{Math.round(progress * 100)}%</span>
        </div>
      )}
      <FormActions label={replacing ? 'Replace contents' : 'Upload'} busy={action.busy} disabled={!file} onCancel={onCancel} />
    </form>
  );
}
