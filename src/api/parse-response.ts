import type { z } from 'zod';
import { ApiInvalidResponseError } from './errors.js';
import type { OperationSpec } from './operations.js';

/** At most this many problems are listed in one message; the rest are counted. */
const MAX_LISTED = 5;

/**
 * Checks a 2xx answer against the operation's loose schema. Extra fields pass; a missing required
 * field or a wrong type is an ApiInvalidResponseError naming the operation and each field path.
 * `clean` scrubs every string of the answer first (a service may echo the credentials in a
 * `failed_reason`), so nothing the caller stores or prints can carry them.
 */
export function parseResponse(operation: string, spec: OperationSpec, text: string, clean: (value: unknown) => unknown): unknown {
  if (!spec.response) return undefined;
  let json: unknown;
  try {
    json = clean(JSON.parse(text));
  } catch {
    throw new ApiInvalidResponseError(operation, `body is not JSON: ${JSON.stringify(clean(text.slice(0, 80)))}`);
  }
  const parsed = spec.response.safeParse(json);
  if (parsed.success) return parsed.data;
  throw new ApiInvalidResponseError(operation, describeIssues(parsed.error));
}

function describeIssues(error: z.ZodError): string {
  const lines = error.issues.slice(0, MAX_LISTED).map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path || '(root)'}: ${issue.message}`;
  });
  const more = error.issues.length - MAX_LISTED;
  return lines.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
