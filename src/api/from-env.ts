import { InvalidInputError, MissingConfigError } from '../errors.js';
import { createLogger } from '../util/logger.js';
import { createClient, type ClientOptions } from './client.js';
import { assertHeaderValue } from './header-values.js';
import type { ServiceClient } from './service-client.js';

/** The environment variables the client reads, with what each is for. */
export const CLIENT_ENV = {
  REELPIPE_API_ID: 'the account API ID (account settings page), sent as X-API-ID',
  REELPIPE_API_KEY: 'the account API key (account settings page), sent as X-API-KEY',
  REELPIPE_BASE_URL: "the service's base address, e.g. https://api.example.com",
} as const;

/**
 * A client configured from `REELPIPE_API_ID`, `REELPIPE_API_KEY` and `REELPIPE_BASE_URL`; an unset
 * or empty one is a MissingConfigError naming the variable, a credential that cannot be sent as a
 * header an InvalidInputError naming it (never its value). `overrides` win over the environment.
 */
export function clientFromEnv(env: NodeJS.ProcessEnv, overrides: Partial<ClientOptions> = {}): ServiceClient {
  const read = (name: keyof typeof CLIENT_ENV, override: string | undefined): string => {
    const value = override ?? env[name]?.trim();
    if (!value) throw new MissingConfigError(name, CLIENT_ENV[name]);
    if (name !== 'REELPIPE_BASE_URL') assertHeaderValue(name, value);
    return value;
  };
  const apiId = read('REELPIPE_API_ID', overrides.apiId);
  const apiKey = read('REELPIPE_API_KEY', overrides.apiKey);
  const baseUrl = read('REELPIPE_BASE_URL', overrides.baseUrl);
  if (!/^https?:\/\/./i.test(baseUrl)) {
    throw new InvalidInputError(
      [{ path: 'REELPIPE_BASE_URL', message: `must be an http(s) address such as https://api.example.com, got '${baseUrl}'` }],
      'invalid configuration',
    );
  }
  const logger = overrides.logger ?? createLogger({ env, secrets: [apiId, apiKey] });
  return createClient({ ...overrides, apiId, apiKey, baseUrl, logger });
}
