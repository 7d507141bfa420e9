import type { z } from 'zod';
import { InvalidInputError, type InputIssue } from '../errors.js';
import type { OperationName, OperationSpec } from './operations.js';
import type { CallArgs } from './resources.js';
import { Uuid } from './schemas/index.js';
import type { PreparedRequest } from './transport.js';

const USER_AGENT = 'reelpipe';

export interface Credentials {
  apiId: string;
  apiKey: string;
}

/**
 * Checks every part of a call against the operation's schemas and builds the request once: the
 * same path, headers and body bytes are sent on every attempt. A bad part never leaves the process.
 */
export function prepareRequest(
  name: OperationName,
  spec: OperationSpec,
  args: CallArgs,
  basePath: string,
  credentials: Credentials,
): PreparedRequest {
  const issues: InputIssue[] = [];
  const path = buildPath(spec, args.id, issues);
  const query = spec.query ? check(spec.query, args.query ?? {}, 'query', issues) : undefined;
  const body = spec.body ? check(spec.body, args.body, undefined, issues) : undefined;
  if (issues.length > 0) throw new InvalidInputError(issues, `${name}: request rejected before sending`);

  const headers: Record<string, string> = {
    'x-api-id': credentials.apiId,
    'x-api-key': credentials.apiKey,
    accept: 'application/json',
    'user-agent': USER_AGENT,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return {
    operation: name,
    method: spec.method,
    path: basePath + path + queryString(query),
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

function buildPath(spec: OperationSpec, id: string | undefined, issues: InputIssue[]): string {
  if (!spec.path.includes('{id}')) return spec.path;
  const kind = spec.pathId ?? 'uuid';
  if (typeof id !== 'string' || id === '') {
    issues.push({ path: 'id', message: `an id is required (${kind === 'uuid' ? 'a UUID' : 'text'})` });
  } else if (kind === 'uuid' && !Uuid.safeParse(id).success) {
    issues.push({ path: 'id', message: `must be a UUID (8-4-4-4-12 hex digits), got '${id.slice(0, 60)}'` });
  }
  return spec.path.replace('{id}', encodeURIComponent(id ?? ''));
}

function check(schema: z.ZodType, value: unknown, prefix: string | undefined, issues: InputIssue[]): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const path = [prefix, ...issue.path.map(String)].filter((p) => p !== undefined && p !== '').join('.');
    issues.push({ path: path || '(body)', message: issue.message });
  }
  return undefined;
}

/** Lists go comma-separated with literal commas (`ids=a,b`), as the service's list filters expect. */
function queryString(query: unknown): string {
  if (query === undefined || query === null || typeof query !== 'object') return '';
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    const items = Array.isArray(value) ? value : [value];
    pairs.push(`${encodeURIComponent(key)}=${items.map((item) => encodeURIComponent(String(item))).join(',')}`);
  }
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}
