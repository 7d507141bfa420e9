import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { UsageError } from '../errors.js';

export type { Logger } from 'pino';

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Secrets shorter than this are not redacted. Why: replacing a two-character value everywhere
 * would shred every log line, and a value that short guards nothing anyway.
 */
const MIN_SECRET_LENGTH = 4;
const REDACTED = '[REDACTED]';

/**
 * Replaces every occurrence of every secret in `text`: the raw value, its JSON-escaped form (as it
 * appears inside a serialized log line) and its URL-encoded form (as it appears in an address).
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined>): string {
  const list = [...secrets];
  const key = list.join('\u0000');
  let redact = REDACTORS.get(key);
  if (!redact) {
    // A process meets a handful of secret sets (the run's credentials): a small cache suffices.
    if (REDACTORS.size > 32) REDACTORS.clear();
    REDACTORS.set(key, (redact = redactorFor(list)));
  }
  return redact(text);
}

const REDACTORS = new Map<string, (text: string) => string>();

/**
 * The redaction of `secrets`, worked out once: every variant (raw, JSON-escaped, URL-encoded),
 * longest first so a secret containing another is replaced whole. Why once: a run's log redacts
 * every line it writes, and building the variants per line cost more than writing the line.
 */
export function redactorFor(secrets: Iterable<string | undefined>): (text: string) => string {
  const variants = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    variants.add(secret);
    variants.add(JSON.stringify(secret).slice(1, -1));
    variants.add(encodeURIComponent(secret));
  }
  const ordered = [...variants].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const variant of ordered) if (out.includes(variant)) out = out.split(variant).join(REDACTED);
    return out;
  };
}

/** Credential environment variables whose values are always redacted. */
export const SECRET_ENV_VARS = ['REELPIPE_API_ID', 'REELPIPE_API_KEY'] as const;

export interface LoggerOptions {
  /**
   * Minimum level written.
   * @default env REELPIPE_LOG_LEVEL, else 'warn' (DEFAULT_LOG_LEVEL)
   */
  level?: string;
  /**
   * Values never to write: every line is scrubbed of them after serialization, so they cannot
   * leak through a header, a message or an error's text.
   * @default the values of REELPIPE_API_ID and REELPIPE_API_KEY in `env`
   */
  secrets?: readonly (string | undefined)[];
  /**
   * Where JSON lines go.
   * @default stderr, written synchronously so nothing is lost when the CLI exits
   */
  destination?: DestinationStream;
  /**
   * Environment read for the level and the default secrets.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /**
   * Fields written on every line (a run's log: its `runId`).
   * @default none
   */
  bindings?: Record<string, unknown>;
  /**
   * The level when neither `level` nor REELPIPE_LOG_LEVEL says one.
   * @default DEFAULT_LOG_LEVEL ('warn')
   */
  defaultLevel?: LevelWithSilent;
}

/**
 * Operators read reports, not logs: by default only warnings and errors reach stderr.
 * `REELPIPE_LOG_LEVEL=info` or `debug` shows more.
 */
export const DEFAULT_LOG_LEVEL: LevelWithSilent = 'warn';

/** A pino logger writing JSON lines, with credentials redacted wherever they appear. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const level = resolveLevel(options.level ?? env.REELPIPE_LOG_LEVEL, options.defaultLevel);
  const secrets = [...(options.secrets ?? []), ...SECRET_ENV_VARS.map((name) => env[name])];
  const destination = options.destination ?? pino.destination({ dest: 2, sync: true });
  return pino(
    {
      level,
      base: options.bindings ?? undefined,
      // Belt and braces: header objects never reach a log line, but if one does its values go.
      redact: { paths: ['headers["x-api-key"]', 'headers["x-api-id"]', '*.headers["x-api-key"]', '*.headers["x-api-id"]'], censor: REDACTED },
      hooks: { streamWrite: redactorFor(secrets) },
    },
    destination,
  );
}

function resolveLevel(level: string | undefined, fallback: LevelWithSilent = DEFAULT_LOG_LEVEL): LevelWithSilent {
  if (level === undefined || level === '') return fallback;
  const normalized = level.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(normalized)) return normalized as LevelWithSilent;
  throw new UsageError(`REELPIPE_LOG_LEVEL: unknown log level '${level}'; expected one of ${LOG_LEVELS.join(', ')}`);
}
