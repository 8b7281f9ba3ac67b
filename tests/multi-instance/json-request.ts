// A JSON request to one of the server processes these tests start, on a connection of its own:
// keep-alive would let a request go out on a socket the server has just closed (`write EPIPE`
// under load), so every request closes its connection.
export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The header every request of these tests carries (also the ones that send a form). */
export const NO_REUSE = { connection: 'close' };

export async function request(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<JsonAnswer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...NO_REUSE, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}
