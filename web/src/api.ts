// The registry's public API, with the session's token. Every request goes to the page's
// own origin, under the path its registry is served at: the page loads nothing from
// anywhere else.
//
// Requests and answers are typed from the API definition: `api-types.ts` is generated
// from `../openapi.json`, the server's `/api/openapi.json` as committed (scripts/openapi.sh
// writes both), so a route, parameter or field renamed on the server fails this page's
// type check where it is used.
import type { components, paths } from './api-types';

/** The named schemas of the API definition (`Session`, `FeatureCollection`, ...). */
export type Schemas = components['schemas'];

/** Where this page's registry is served: `''` at the root of a server, `/r/carmel` for a
 *  coalition's member. It is the folder the page itself was loaded from (the server
 *  serves the page only at its registry's `/`, and the built files are named relative to
 *  it), found once here; every URL the page asks is under it, through `at`. */
export const BASE = baseOf(typeof location === 'undefined' ? '/' : location.pathname);

/** The registry's base of a page at `pathname`: its folder, without the trailing slash. */
export function baseOf(pathname: string): string {
  return pathname.slice(0, pathname.lastIndexOf('/') + 1).replace(/\/$/, '');
}

/** A path of the service (`/api/session`) as this page must ask it. */
export function at(path: string): string {
  return BASE + path;
}

/** The name of something this page keeps in the browser (a storage key, a database):
 *  storage is shared by every registry of one server, so a member's is its own. */
export function kept(name: string): string {
  return BASE ? `${name} ${BASE}` : name;
}

const TOKEN_KEY = kept('ms4.token');

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
export function apiError(status: number, statusText: string, body: unknown): ApiError {
  const error = (body as Partial<Schemas['Error']> | null)?.error;
  const message = typeof error === 'string' ? error : `${status} ${statusText}`;
  return new ApiError(status, message, fieldOf(body));
}

/** The field an error body names, if any. */
export function fieldOf(body: unknown): string | null {
  const field = (body as Partial<Schemas['Error']> | null)?.field;
  return typeof field === 'string' && field ? field : null;
}

type Method = 'get' | 'post' | 'delete';

/** The paths that take `M`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<M, { responses: unknown }> ? P : never;
}[keyof paths];

/** The operation `M P` of the API definition. */
type Op<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer O> ? O : never;

/** The usual answer of an operation: its 200, else its 201. */
type Ok<O> = O extends { responses: infer R } ? (200 extends keyof R ? R[200] : 201 extends keyof R ? R[201] : never) : never;

/** The body of an answer in `media`. */
type In<R, media extends string> = R extends { content: infer C } ? (media extends keyof C ? C[media] : never) : never;

/** The answer of `M P` as JSON (GeoJSON for a route that answers only that); `unknown`
 *  where the definition gives the answer no schema. */
export type Answer<P extends keyof paths, M extends Method> =
  [In<Ok<Op<P, M>>, 'application/json'>] extends [never] ? In<Ok<Op<P, M>>, 'application/geo+json'> : In<Ok<Op<P, M>>, 'application/json'>;

/** The answer of `M P` in its GeoJSON form (`f=geojson`). */
export type GeoJsonAnswer<P extends keyof paths, M extends Method> = In<Ok<Op<P, M>>, 'application/geo+json'>;

type Parameters<O> = O extends { parameters: infer X } ? X : never;
type Defined<T> = Exclude<T, undefined>;

/** What a request of `M P` sends: the path's parameters (by name), the query, and a JSON
 *  body of the type the route reads or another body (a form, a file) for one that takes
 *  that. */
export type Request<P extends keyof paths, M extends Method> = {
  query?: Defined<Parameters<Op<P, M>> extends { query?: infer Q } ? Q : never>;
  /** Property filters of an OGC items route (`from_id=OF-1`): not in the definition. */
  filter?: Record<string, string>;
  json?: Op<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
  body?: BodyInit;
  headers?: Record<string, string>;
} & (Defined<Parameters<Op<P, M>> extends { path?: infer X } ? X : never> extends never
  ? { path?: undefined }
  : { path: Defined<Parameters<Op<P, M>> extends { path?: infer X } ? X : never> });

/** The URL of `path` with its parameters and query, under the page's base. */
export function urlOf(path: string, params: Record<string, string> = {}, query: Record<string, unknown> = {}, filter: Record<string, string> = {}): string {
  const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`${path}: no value for ${name}`);
    return encodeURIComponent(params[name]);
  });
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, ...filter })) {
    // A list is one comma-separated value (`kinds=a,b`, `bbox=1,2,3,4`), as the server reads it.
    if (v !== undefined && v !== null) q.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = q.toString();
  return at(s ? `${url}?${s}` : url);
}

/** Sends `method path`; throws ApiError with the server's message on a non-2xx answer, and
 *  TypeError (from fetch) when the network is down. */
async function send(method: Method, path: string, req: { path?: unknown; query?: unknown; filter?: Record<string, string>; json?: unknown; body?: BodyInit; headers?: Record<string, string> }, geojson = false): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(), ...req.headers };
  let body = req.body;
  if (req.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(req.json);
  }
  // The GeoJSON form is asked with `f=geojson` (as `Accept: application/geo+json` would),
  // so it is a URL of its own, never a cached copy of the JSON form.
  const query = { ...(req.query as Record<string, unknown> | undefined), ...(geojson ? { f: 'geojson' } : {}) };
  const url = urlOf(path, req.path as Record<string, string> | undefined, query, req.filter);
  const res = await fetch(url, { method: method.toUpperCase(), headers, body });
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    throw apiError(res.status, res.statusText, data);
  }
  return data;
}

/** `GET path`, its answer as the definition types it. */
export function get<P extends PathOf<'get'>>(path: P, ...req: Request<P, 'get'> extends { path: unknown } ? [Request<P, 'get'>] : [Request<P, 'get'>?]): Promise<Answer<P, 'get'>> {
  return send('get', path, req[0] ?? {}) as Promise<Answer<P, 'get'>>;
}

/** `POST path`. */
export function post<P extends PathOf<'post'>>(path: P, ...req: Request<P, 'post'> extends { path: unknown } ? [Request<P, 'post'>] : [Request<P, 'post'>?]): Promise<Answer<P, 'post'>> {
  return send('post', path, req[0] ?? {}) as Promise<Answer<P, 'post'>>;
}

/** `DELETE path`. */
export function del<P extends PathOf<'delete'>>(path: P, ...req: Request<P, 'delete'> extends { path: unknown } ? [Request<P, 'delete'>] : [Request<P, 'delete'>?]): Promise<Answer<P, 'delete'>> {
  return send('delete', path, req[0] ?? {}) as Promise<Answer<P, 'delete'>>;
}

/** `GET path` in the answer's GeoJSON form: the places it names, in CRS84. */
export function getGeoJson<P extends PathOf<'get'>>(path: P, ...req: Request<P, 'get'> extends { path: unknown } ? [Request<P, 'get'>] : [Request<P, 'get'>?]): Promise<GeoJsonAnswer<P, 'get'>> {
  return send('get', path, req[0] ?? {}, true) as Promise<GeoJsonAnswer<P, 'get'>>;
}

/** `POST path` in the answer's GeoJSON form. */
export function postGeoJson<P extends PathOf<'post'>>(path: P, ...req: Request<P, 'post'> extends { path: unknown } ? [Request<P, 'post'>] : [Request<P, 'post'>?]): Promise<GeoJsonAnswer<P, 'post'>> {
  return send('post', path, req[0] ?? {}, true) as Promise<GeoJsonAnswer<P, 'post'>>;
}

/** What the token may do (`GET /api/session`). */
export type Session = Schemas['Session'];

/** A GeoJSON FeatureCollection as the server answers it. */
export type FeatureCollection = Schemas['FeatureCollection'];
/** A GeoJSON Feature as the server answers it. */
export type Feature = Schemas['Feature'];
