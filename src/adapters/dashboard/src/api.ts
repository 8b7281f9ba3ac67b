// The console API client: cookie sessions, the CSRF header on every state-changing request, and
// errors turned into messages people can read (the API's `message` and per-field `errors`).

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
  }
}

const BASE = '/api/console';
let csrfToken: string | null = null;
let onSignedOut: () => void = () => {};

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the API answers 401 to a signed-in request: the session ended (expiry, revocation). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

function stateChanging(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method);
}

export function requestHeaders(method: string, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (json) headers['content-type'] = 'application/json';
  if (stateChanging(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  return headers;
}

const FRIENDLY: Record<string, string> = {
  INVALID_CREDENTIALS: 'The email or password is wrong.',
  INVALID_CONSOLE_TOKEN: 'Your session has ended. Please sign in again.',
  CSRF_REJECTED: 'The request was refused as a possible cross-site request. Reload the page and try again.',
  INTERNAL_ERROR: 'Something went wrong on the server. Please try again.',
  NOT_FOUND: 'That does not exist.',
};

/** Builds an ApiError from an error response's status and body text. */
export function errorFromBody(status: number, text: string, retryAfter: string | null = null): ApiError {
  let body: { error_code?: unknown; message?: unknown; errors?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not JSON (a proxy's page, an empty body): fall back on the status.
  }
  const code = typeof body.error_code === 'string' ? body.error_code : `HTTP_${status}`;
  let message = FRIENDLY[code] ?? (typeof body.message === 'string' ? capitalize(body.message) : `The server answered ${status}.`);
  if (status === 429 && retryAfter) message += ` Try again in ${retryAfter} seconds.`;
  const fields = Array.isArray(body.errors) ? (body.errors as unknown[]).filter((e): e is FieldError => typeof e === 'object' && e !== null && 'field' in e && 'message' in e) : [];
  return new ApiError(status, code, message, fields);
}

function capitalize(s: string): string {
  const text = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(BASE + path, {
      method,
      credentials: 'same-origin',
      headers: requestHeaders(method, body !== undefined),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The server cannot be reached. Check your connection and try again.');
  }
  if (!response.ok) {
    const error = errorFromBody(response.status, await response.text(), response.headers.get('retry-after'));
    if (error.code === 'INVALID_CONSOLE_TOKEN' && path !== '/session') onSignedOut();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = (path: string) => api<void>('DELETE', path);

/** Path segment encoding for ids, names and codes. */
export const seg = (s: string) => encodeURIComponent(s);

export function appPath(appId: string, rest = ''): string {
  return `/applications/${seg(appId)}${rest}`;
}

/** Multipart upload with progress (fetch cannot report upload progress): XMLHttpRequest, with the CSRF
 * header like every other state-changing request. */
export function upload<T>(method: 'POST' | 'PUT', path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, BASE + path);
    for (const [name, value] of Object.entries(requestHeaders(method, false))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        // A throw here would leave the promise pending and the form busy for good.
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(new ApiError(xhr.status, 'BAD_RESPONSE', 'The server answered the upload with something unreadable. Reload the page to see whether it arrived.'));
        }
      } else {
        const error = errorFromBody(xhr.status, xhr.responseText, xhr.getResponseHeader('retry-after'));
        if (error.code === 'INVALID_CONSOLE_TOKEN') onSignedOut();
        reject(error);
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK', 'The upload was cut off. Check your connection and try again.'));
    xhr.send(form);
  });
}
