/** The service client: one import for everything other modules use. */
export { createClient, CREATING_CONNECTIONS, MAX_RESPONSE_BYTES, type ClientOptions } from './client.js';
export { clientFromEnv, CLIENT_ENV } from './from-env.js';
export type { ServiceClient, CallOptions, IdsFilter, LipsyncListFilter } from './service-client.js';
export { OPERATIONS, OPERATION_NAMES, type OperationName, type OperationSpec } from './operations.js';
export { RETRY_RULES, judgeFailure, type Effect, type AttemptFailure, type Verdict } from './retry-policy.js';
export { RETRY_DEFAULTS, parseRetryAfter, retryDelayMs, type RetryOptions } from './backoff.js';
export { TIMEOUT_DEFAULTS, type Timeouts } from './pool.js';
export { speaksOfCreditShortage } from './send-with-retries.js';
export * from './errors.js';
