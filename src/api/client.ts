import { InvalidInputError, MissingConfigError } from '../errors.js';
import { systemClock } from '../util/clock.js';
import { createLogger, type Logger } from '../util/logger.js';
import type { Random } from '../util/random.js';
import { RETRY_DEFAULTS, type RetryOptions } from './backoff.js';
import { OPERATIONS, type OperationName, type ResultOf } from './operations.js';
import { prepareRequest } from './prepare-request.js';
import { redactError } from './redact-error.js';
import { buildResources, type CallArgs } from './resources.js';
import { runWithRetries, type SendContext } from './send-with-retries.js';
import type { ServiceClient } from './service-client.js';
import { TIMEOUT_DEFAULTS, createPool, type Timeouts } from './transport.js';

export interface ClientOptions {
  /** The service's base address, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** Sent as X-API-ID; never logged. */
  apiId: string;
  /** Sent as X-API-KEY; never logged. */
  apiKey: string;
  /**
   * Where request lines (debug), retries (debug) and in-doubt outcomes (warn) go.
   * @default createLogger() with the credentials registered as secrets
   */
  logger?: Logger;
  /** @default TIMEOUT_DEFAULTS (connect 10 s, headers 30 s, body 30 s) */
  timeouts?: Timeouts;
  /** @default RETRY_DEFAULTS (4 attempts, 500 ms base, 8 s cap, Retry-After up to 60 s) */
  retry?: RetryOptions;
  /**
   * Waits between attempts; tests inject one that records instead of waiting.
   * @default real timers
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Jitter source in [0, 1).
   * @default Math.random
   */
  random?: Random;
  /**
   * Current time in ms, for Retry-After dates and durations.
   * @default Date.now
   */
  now?: () => number;
  /**
   * Most sockets open to the service at once.
   * @default 8
   */
  connections?: number;
}

/** Builds the typed client over one keep-alive pool. */
export function createClient(options: ClientOptions): ServiceClient {
  const base = parseBaseUrl(options.baseUrl);
  if (!options.apiId) throw new MissingConfigError('apiId', 'the account API ID sent as X-API-ID');
  if (!options.apiKey) throw new MissingConfigError('apiKey', 'the account API key sent as X-API-KEY');
  const secrets = [options.apiId, options.apiKey];
  const pool = createPool(base.origin, { ...TIMEOUT_DEFAULTS, ...options.timeouts }, options.connections ?? 8);
  const context: SendContext = {
    pool,
    logger: options.logger ?? createLogger({ secrets }),
    retry: { ...RETRY_DEFAULTS, ...options.retry },
    sleep: options.sleep ?? ((ms) => systemClock.sleep(ms)),
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    secrets,
  };
  const basePath = base.pathname.replace(/\/+$/, '');

  const send = async <N extends OperationName>(name: N, args: CallArgs = {}): Promise<ResultOf<N>> => {
    try {
      const request = prepareRequest(name, OPERATIONS[name], args, basePath, options);
      return (await runWithRetries(context, OPERATIONS[name], request)) as ResultOf<N>;
    } catch (error) {
      throw redactError(error, secrets);
    }
  };
  let closing: Promise<void> | undefined;
  return { ...buildResources(send), close: () => (closing ??= pool.close()) };
}

function parseBaseUrl(value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidInputError(
      [{ path: 'baseUrl', message: `must be an http(s) address such as https://api.example.com, got '${value}'` }],
      'invalid client configuration',
    );
  }
  return url;
}
