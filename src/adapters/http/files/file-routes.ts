import multipart from '@fastify/multipart';
import { Type, type FastifyPluginAsyncTypebox, type TProperties } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../../application/deps.js';
import { createFile, deleteFile, getFile, listFiles, updateFile, upsertFileByName, type FileFields } from '../../../application/files/file-writes.js';
import { discardBlobs } from '../../../application/files/uploads.js';
import type { ApplicationRecord } from '../../../application/records.js';
import { FILE_NAME_MAX, type FileSource } from '../../../domain/files.js';
import { validationError } from '../../../domain/errors.js';
import { Uuid, closed } from '../schemas.js';
import { sendFile } from './download.js';
import { fileJson } from './file-views.js';
import { formBoolean, formText, readUploadForm, type UploadForm } from './multipart-upload.js';
import { answers } from '../answers.js';
import { File, FileBytes, NoBody } from '../wire-schemas.js';

export interface FileRoutesOptions {
  deps: Deps;
  /** ADMIN_API or DASHBOARD: recorded as the source of every write. */
  source: FileSource;
  /** The application a request acts on (admin key, or owner and app_id), checked before the body is read. */
  application: (request: FastifyRequest) => Promise<ApplicationRecord>;
  /** Path parameters the mount point adds (the console's app_id). */
  mountParams: TProperties;
}

/** Upload routes take their time receiving a body; the server's short body deadline skips them. */
const upload = { upload: true };

/** The admin file endpoints (docs/api.md, API reference, "Admin API" Files); mounted under /api/admin and under the console. */
export const fileRoutes: FastifyPluginAsyncTypebox<FileRoutesOptions> = async (app, { deps, source, application, mountParams }) => {
  // Here, not on the whole server: the plugin adds a hook to every answer of the scope it is in,
  // and only these routes take multipart bodies.
  await app.register(multipart, {
    // Our own checks decide: busboy hands on one byte past the maximum, so the blob store's own
    // limit fails the upload the moment it is too large and the 413 goes out at once, instead of
    // after the rest of the file has been read (see readUploadForm and lingering-close.ts).
    throwFileSizeLimit: false,
    limits: { fileSize: deps.files.maxUploadBytes + 1, files: 1, fields: 5, parts: 10, fieldSize: 64 * 1024, headerPairs: 100 },
  });
  const FileParams = Type.Object({ ...mountParams, file_id: Uuid }, closed);
  const NameParams = Type.Object({ ...mountParams, name: Type.String({ minLength: 1, maxLength: FILE_NAME_MAX * 4 }) }, closed);
  const ListParams = Type.Object(mountParams, closed);

  app.post('/files', { config: { ...upload, errors: ['FILE_NAME_TAKEN'] }, schema: { params: ListParams, response: answers({ 201: File }) } }, async (request, reply) => {
    const target = await application(request);
    const form = await readUploadForm(deps, request);
    const { name, fields, staged } = await formOrDiscard(deps, form, (f) => {
      if (f.upload === null) throw validationError('file', 'is required');
      return { name: formText(f.fields, 'name'), fields: writeFields(f.fields, source), staged: f.upload };
    });
    return reply.code(201).send(fileJson(await createFile(deps, target, name, fields, staged, staged.staged)));
  });

  app.put('/files/by-name/:name', { config: { ...upload, errors: ['URI_TOO_LONG'] }, schema: { params: NameParams, response: answers({ 200: File, 201: File }) } }, async (request, reply) => {
    const target = await application(request);
    const form = await readUploadForm(deps, request);
    const { fields, staged } = await formOrDiscard(deps, form, (f) => {
      if (f.upload === null) throw validationError('file', 'is required');
      if (f.fields.has('name')) throw validationError('name', 'is given by the path');
      return { fields: writeFields(f.fields, source), staged: f.upload };
    });
    const { file, created } = await upsertFileByName(deps, target, request.params.name, fields, staged, staged.staged);
    return reply.code(created ? 201 : 200).send(fileJson(file));
  });

  app.put('/files/:file_id', { config: { ...upload, errors: ['FILE_NOT_FOUND', 'FILE_NAME_TAKEN'] }, schema: { params: FileParams, response: answers({ 200: File }) } }, async (request) => {
    const target = await application(request);
    const form = await readUploadForm(deps, request);
    const { name, fields } = await formOrDiscard(deps, form, (f) => ({ name: formText(f.fields, 'name'), fields: writeFields(f.fields, source) }));
    return fileJson(await updateFile(deps, target, request.params.file_id, name, fields, form.upload));
  });

  app.get('/files', { schema: { params: ListParams, response: answers({ 200: Type.Array(File) }) } }, async (request) => (await listFiles(deps, await application(request))).map(fileJson));

  app.get('/files/:file_id', { schema: { params: FileParams, response: answers({ 200: File }) }, config: { errors: ['FILE_NOT_FOUND'] } }, async (request) =>
    fileJson(await getFile(deps, await application(request), request.params.file_id)),
  );

  app.get(
    '/files/:file_id/download',
    { schema: { params: FileParams, response: answers({ 200: FileBytes, 206: FileBytes, 304: NoBody }) }, config: { errors: ['FILE_NOT_FOUND', 'RANGE_NOT_SATISFIABLE'] } },
    async (request, reply) => {
      const file = await getFile(deps, await application(request), request.params.file_id);
      return sendFile(deps, request, reply, file);
    },
  );

  app.delete('/files/:file_id', { schema: { params: FileParams, response: answers({ 204: NoBody }) }, config: { errors: ['FILE_NOT_FOUND'] } }, async (request, reply) => {
    await deleteFile(deps, await application(request), request.params.file_id, request.actor);
    return reply.code(204).send();
  });
};

function writeFields(fields: Map<string, string>, source: FileSource): FileFields {
  return { isPublic: formBoolean(fields, 'is_public'), storeEncrypted: formBoolean(fields, 'store_encrypted'), source };
}

/** Reads the form's fields (which may come after the file). A bad field must not leave the staged
 * upload behind; once the fields are good, the use case owns the upload (and discards it itself
 * if the write fails). */
async function formOrDiscard<T>(deps: Deps, form: UploadForm, read: (form: UploadForm) => T): Promise<T> {
  try {
    return read(form);
  } catch (error) {
    if (form.upload !== null) await discardBlobs(deps, [form.upload.staged.key]);
    throw error;
  }
}
