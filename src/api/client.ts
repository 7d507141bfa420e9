import { InvalidInputError, MissingConfigError } from '../errors.js';
import { systemClock } from '../util/clock.js';
import { createLogger, type Logger } from '../util/logger.js';
import type { Random } from '../util/random.js';
import { RETRY_DEFAULTS, type RetryOptions } from './backoff.js';
import { assertHeaderValue } from './header-values.js';
import { OPERATIONS, type OperationName, type ResultOf } from './operations.js';
import { prepareRequest } from './prepare-request.js';
import { redactError } from './redact-error.js';
import { buildResources, type CallArgs } from './resources.js';
import { runWithRetries, type SendContext } from './send-with-retries.js';
import { TIMEOUT_DEFAULTS, createPool, type Timeouts } from './pool.js';
import type { CallOptions, ServiceClient } from './service-client.js';

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
  /** @default TIMEOUT_DEFAULTS (connect 10 s, headers 30 s, body silence 30 s, whole attempt 60 s) */
  timeouts?: Timeouts;
  /** @default RETRY_DEFAULTS (4 attempts, 500 ms base, 8 s cap, Retry-After up to 60 s, 120 s per call) */
  retry?: RetryOptions;
  /**
   * Largest answer read, in bytes; a larger one is dropped unread and handled like a 5xx (a read
   * is tried again, a creating POST is in doubt). Why: answers are small JSON; one 1.5 GB answer
   * must not take the process's memory.
   * @default 8 MiB (MAX_RESPONSE_BYTES)
   */
  maxResponseBytes?: number;
  /**
   * Aborts every call in flight and every call made later (the run's stop signal): see
   * CallOptions.signal.
   * @default none
   */
  signal?: AbortSignal;
  /**
   * Waits between attempts; tests inject one that records instead of waiting. Must reject when
   * the signal aborts.
   * @default real timers
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
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
   * Most sockets open to the service at once for reads, updates and deletions.
   * @default 8
   */
  connections?: number;
  /**
   * Most sockets for creating requests (POSTs that make a job), a pool of their own. Why apart:
   * a creating request queued behind reads has its intent committed yet is not on the wire, and a
   * crash then leaves it "may have been sent" — in doubt — though it never left. A runner that
   * sends at most this many creations at once (see CREATING_AT_ONCE in src/run) never waits for
   * a socket, so every job in `submitting` truly is on the wire.
   * @default CREATING_CONNECTIONS (16)
   */
  creatingConnections?: number;
}

/** Sockets for creating requests unless told otherwise (see ClientOptions.creatingConnections). */
export const CREATING_CONNECTIONS = 16;

/** Answers are small JSON: 8 MiB is far above any list of 100 jobs. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Builds the typed client over one keep-alive pool. */
export function createClient(options: ClientOptions): ServiceClient {
  const base = parseBaseUrl(options.baseUrl);
  if (!options.apiId) throw new MissingConfigError('apiId', 'the account API ID sent as X-API-ID');
  if (!options.apiKey) throw new MissingConfigError('apiKey', 'the account API key sent as X-API-KEY');
  assertHeaderValue('apiId', options.apiId);
  assertHeaderValue('apiKey', options.apiKey);
  const secrets = [options.apiId, options.apiKey];
  const timeouts = { ...TIMEOUT_DEFAULTS, ...options.timeouts };
  const pool = createPool(base.origin, timeouts, options.connections ?? 8);
  const creating = createPool(base.origin, timeouts, options.creatingConnections ?? CREATING_CONNECTIONS);
  const context: SendContext = {
    // Read at each request, so the pools are made at the first one (see createPool).
    get dispatcher() {
      return pool.dispatcher;
    },
    get creatingDispatcher() {
      return creating.dispatcher;
    },
    logger: options.logger ?? createLogger({ secrets }),
    retry: { ...RETRY_DEFAULTS, ...options.retry },
    sleep: options.sleep ?? ((ms, signal) => systemClock.sleep(ms, signal)),
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    secrets,
    attemptMs: timeouts.attemptMs,
    maxResponseBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
  };
  const basePath = base.pathname.replace(/\/+$/, '');

  const send = async <N extends OperationName>(name: N, args: CallArgs = {}, call: CallOptions = {}): Promise<ResultOf<N>> => {
    try {
      const request = prepareRequest(name, OPERATIONS[name], args, basePath, options);
      const signal = anyOf(options.signal, call.signal);
      return (await runWithRetries(context, OPERATIONS[name], request, { signal, log: call.log, beforeCreating: call.beforeCreating })) as ResultOf<N>;
    } catch (error) {
      throw redactError(error, secrets);
    }
  };
  let closing: Promise<void> | undefined;
  const close = async () => {
    await Promise.all([pool.close(), creating.close()]);
  };
  return { baseUrl: base.href, ...buildResources(send), close: () => (closing ??= close()) };
}

function anyOf(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((signal) => signal !== undefined);
  return given.length > 1 ? AbortSignal.any(given) : given[0];
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
