import { InvalidInputError } from '../errors.js';
import { redactSecrets } from '../util/logger.js';

/** How deep a cause chain is followed. */
const MAX_DEPTH = 5;

/**
 * Scrubs the credentials out of an error leaving the client: its message, its stack, and the same
 * for every error in its cause chain (undici and socket errors can quote what they were given).
 * The error keeps its class, so `instanceof` checks still work.
 */
export function redactError<T>(error: T, secrets: readonly string[], depth = 0): T {
  if (!(error instanceof Error) || depth > MAX_DEPTH) return error;
  const message = redactSecrets(error.message, secrets);
  if (message !== error.message) error.message = message;
  if (error.stack) {
    const stack = redactSecrets(error.stack, secrets);
    if (stack !== error.stack) error.stack = stack;
  }
  // Located input issues may quote the value they refused (an id, a field): scrub those too.
  if (error instanceof InvalidInputError) {
    for (const issue of error.issues) issue.message = redactSecrets(issue.message, secrets);
  }
  if (error.cause !== undefined) redactError(error.cause, secrets, depth + 1);
  return error;
}

/**
 * A parsed answer with the credentials scrubbed out of every string in it, keys included. Why
 * here, once, where service text enters: every `failed_reason`, message and error body the runner
 * stores or prints comes through the client, so it only ever holds clean text. Why after parsing:
 * JSON may spell a secret with \u escapes that only decoding reveals.
 */
export function redactDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secrets));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, inner]) => [redactSecrets(key, secrets), redactDeep(inner, secrets)]),
  );
}

/**
 * The answer `text`, parsed into `value`, scrubbed as redactDeep scrubs it — without the walk when
 * the text cannot hold a secret: with no escape in it, every string JSON.parse made (keys too) is
 * a slice of the text, so a secret in any spelling the redactor knows would be in the text. Why:
 * the walk redacted every string of every answer, about 1.5 % of a run's CPU, and finds nothing
 * in nearly all of them.
 */
export function redactAnswer(text: string, value: unknown, secrets: readonly string[]): unknown {
  return text.includes('\\') || redactSecrets(text, secrets) !== text ? redactDeep(value, secrets) : value;
}
