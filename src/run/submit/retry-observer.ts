import type { Logger } from '../../util/logger.js';

/**
 * The client retries a 429 itself and reports each retry to its logger (`'retrying'`, with the
 * reason and the wait). The runner's rate limiter must hear about those 429s too, or it keeps
 * sending at a rate the service refuses; this wraps the logger to pass them on. Why a logger
 * wrapper: it is the one channel the client offers for retries, and it changes nothing the client
 * logs.
 */
export function observeRateLimits(logger: Logger, onRateLimited: (retryAfterMs?: number) => void): Logger {
  return new Proxy(logger, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== 'debug' || typeof value !== 'function') return value;
      return (first: unknown, ...rest: unknown[]) => {
        const fields = first as { reason?: unknown; waitMs?: unknown } | undefined;
        if (rest[0] === 'retrying' && typeof fields?.reason === 'string' && fields.reason.includes('429')) {
          onRateLimited(typeof fields.waitMs === 'number' ? fields.waitMs : undefined);
        }
        return (value as (...args: unknown[]) => unknown).apply(target, [first, ...rest]);
      };
    },
  });
}
