import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import { validate } from './body.js';
import type { Reply } from './reply.js';

/** What a handler gets: the matched request, its path parameters and its decoded body. */
export interface RequestContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Decoded body (JSON value or FormBody); `{}` when empty. */
  body: unknown;
  /** The body checked against an operation's schema; throws a DRF 400. */
  parse<S extends z.ZodType & { shape?: Record<string, z.ZodType> }>(schema: S): z.output<S>;
}

/**
 * A route's handler. Synchronous: a state-changing operation runs at one held instant and is
 * journalled before its answer, which an await in the middle would break.
 */
export type Handler = (ctx: RequestContext) => Reply;

/** The context of a request to `route` (a live one, or one replayed from the journal). */
export function requestContext(
  route: Route, path: string, params: Record<string, string>, query: URLSearchParams, headers: IncomingHttpHeaders, body: unknown,
): RequestContext {
  return { method: route.method, path, params, query, headers, body, parse: (schema) => validate(schema, body) };
}

/** How the server treats a route before its handler runs. */
export interface RouteOptions {
  /** Needs X-API-ID and X-API-KEY. @default true */
  auth?: boolean;
  /** Creates a job: "500 after create" and "reset after create" faults apply. @default false */
  creates?: boolean;
  /** Service traffic that faults (429, 503, slow) may hit. @default true when auth is */
  faultable?: boolean;
  /** Errors are `{"error": ...}` as under /sse/. @default false */
  sse?: boolean;
}

export interface Route extends Required<RouteOptions> {
  method: string;
  /** `POST /api/ai_shorts/`: the key of the request counters. */
  key: string;
  handler: Handler;
  regex: RegExp;
  names: string[];
}

/** `{id}` is a UUID as in the spec's paths; any other `{name}` is one path segment. */
const UUID_SEGMENT = '([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})';
const ANY_SEGMENT = '([^/]+)';
const REST = '(.+)';

/** A route, or the path exists for other methods (`allowed`; `auth` and `sse` as those routes have them). */
export type Match =
  | { route: Route; params: Record<string, string> }
  | { allowed: string[]; auth: boolean; sse: boolean }
  | undefined;

/** A route table: method + path pattern → handler. Literal segments win over `{params}` by order. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): this {
    const names: string[] = [];
    const source = pattern.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)(\*?)\}/g, (_m, name: string, rest: string) => {
      names.push(name);
      return rest ? REST : name === 'id' ? UUID_SEGMENT : ANY_SEGMENT;
    });
    const auth = options.auth ?? true;
    this.routes.push({
      method, key: `${method} ${pattern}`, handler, regex: new RegExp(`^${source}$`), names, auth,
      creates: options.creates ?? false, faultable: options.faultable ?? auth, sse: options.sse ?? false,
    });
    return this;
  }

  match(method: string, path: string): Match {
    const others: Route[] = [];
    for (const route of this.routes) {
      const found = route.regex.exec(path);
      if (!found) continue;
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) {
        others.push(route);
        continue;
      }
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)]));
      return { route, params };
    }
    if (others.length === 0) return undefined;
    return { allowed: others.map((r) => r.method), auth: others.some((r) => r.auth), sse: others.some((r) => r.sse) };
  }
}
