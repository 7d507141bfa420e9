import type { IncomingHttpHeaders } from 'node:http';

/** What the credentials check says; `undefined` means the request may go on. */
export type AuthFailure = { status: number; detail: string } | undefined;

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
};

/**
 * X-API-ID and X-API-KEY are both required (401 without them, worded as DRF does). Any non-empty
 * pair is accepted unless the sandbox was given one; a wrong pair is then 401 too, since the live
 * service's status for a wrong key is unknown and the client treats 401 and 403 alike.
 */
export function checkCredentials(
  headers: IncomingHttpHeaders,
  expected: { apiId: string; apiKey: string } | undefined,
): AuthFailure {
  const apiId = header(headers, 'x-api-id');
  const apiKey = header(headers, 'x-api-key');
  if (!apiId || !apiKey) return { status: 401, detail: 'Authentication credentials were not provided.' };
  if (expected && (apiId !== expected.apiId || apiKey !== expected.apiKey)) {
    return { status: 401, detail: 'Invalid API credentials.' };
  }
  return undefined;
}
