/** @module The dashboard's only door: the same /api/v1 routes a script uses, with the session cookie. */

export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of several routes
  json: any;
}

/** Calls /api/v1`path`; writes carry X-Codemux-UI (the CSRF defence the REST auth requires). */
export async function api(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const response = await fetch(`/api/v1${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(method === 'GET' ? {} : { 'x-codemux-ui': '1' }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401) {
    window.location.assign('/ui/login');
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    json = { ok: false, error: { code: `HTTP_${response.status}`, message: response.statusText } };
  }
  return { status: response.status, json };
}

/** The error message of a failed answer, whatever the route's error shape. */
export function errorText(answer: ApiAnswer): string {
  const error = answer.json?.error;
  if (typeof error === 'string') return error;
  if (error?.message) return error.code ? `${error.code}: ${error.message}` : error.message;
  return `HTTP ${answer.status}`;
}

/** Encodes one path segment. */
export const seg = (value: string): string => encodeURIComponent(value);
