// The registry's public API, with the session's token. Every request goes to the page's
// own origin: the page loads nothing from anywhere else.

const TOKEN_KEY = 'ms4.token';

/** The token of this browser session (kept in sessionStorage: gone when the tab closes). */
export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(t: string | null): void {
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** The Authorization header for the session, if signed in. */
export function authHeaders(t: string | null = token()): Record<string, string> {
  return t ? { Authorization: `Bearer ${t}` } : {};
}

/** An error the server answered: its message, and the field at fault when the body
 *  names one (`field`, its path into the request: `screening.field_tests.ph`). */
export class ApiError extends Error {
  constructor(
    public status: number,
    message: string,
    public field: string | null = null,
  ) {
    super(message);
  }
}

/** The ApiError an error body says (`{"error", "status", "field"}`), or the status line
 *  when the body is not the service's. */
export function apiError(status: number, statusText: string, body: any): ApiError {
  const message = typeof body?.error === 'string' ? body.error : `${status} ${statusText}`;
  return new ApiError(status, message, fieldOf(body));
}

/** The field an error body names, if any. */
export function fieldOf(body: any): string | null {
  return typeof body?.field === 'string' && body.field ? body.field : null;
}

/** GET or POST JSON; throws ApiError with the server's message on a non-2xx answer, and
 *  TypeError (from fetch) when the network is down. */
export async function api<T = any>(
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders() };
  Object.assign(headers, init.headers as Record<string, string> | undefined);
  let body = init.body;
  if (init.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(path, { ...init, headers, body });
  const text = await res.text();
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    throw apiError(res.status, res.statusText, data);
  }
  return data as T;
}

/** What the token may do (`GET /api/session`). */
export interface Session {
  signed_in: boolean;
  public_read: boolean;
  may_read: boolean;
  subject: string | null;
  role: string | null;
  may: { read: boolean; inspect: boolean; enforce: boolean; import: boolean; admin: boolean };
}
