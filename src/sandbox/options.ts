import type { Logger } from 'pino';
import { pino } from 'pino';
import { UsageError } from '../errors.js';
import { systemClock, type Clock } from '../util/clock.js';
import { resolveFaultProfile, type FaultProfile } from './faults/profile.js';

export interface SandboxOptions {
  /** Address to listen on. @default '127.0.0.1' */
  host?: string;
  /** Port; 0 picks a free one. @default 0 */
  port?: number;
  /** Divides every duration of the life cycles (and slow-response delays). @default 1 */
  speed?: number;
  /** Render slots; jobs beyond them wait in_queue. @default 4 */
  capacity?: number;
  /** Starting balance in credits. @default 10_000 */
  credits?: number;
  /** Seeds every random choice: ids, faults, default media lengths. @default 1 */
  seed?: number;
  /** none, flaky, hostile, a FaultProfile, or a path to FILE.json. @default 'none' */
  faults?: 'none' | 'flaky' | 'hostile' | FaultProfile | string;
  /** When set with apiKey, only this pair is accepted; otherwise any non-empty pair. @default undefined */
  apiId?: string;
  /** See apiId. @default undefined */
  apiKey?: string;
  /** Lifetime of an output URL in seconds (not divided by speed); 403 after it. @default 3600 */
  outputTtlSeconds?: number;
  /** Where webhooks may go. @default 'loopback' */
  allowWebhookHosts?: 'loopback' | 'any';
  /**
   * What happens when the balance cannot cover a job: `refuse` answers the creating POST with 402,
   * `fail` creates the job and fails it with failed_reason "Insufficient credits" (the behaviour
   * notes say the live service does either). @default 'refuse'
   */
  insufficientCredits?: 'refuse' | 'fail';
  /**
   * A journal file (JSON lines) that makes the sandbox durable: every state change is appended
   * before its answer is sent, and a sandbox started on an existing journal replays it, so jobs,
   * links, credits and counts survive a restart or a killed process (see docs/sandbox.md).
   * @default none: the sandbox keeps everything in memory and forgets it when it stops
   */
  journal?: string;
  /** @default systemClock */
  clock?: Clock;
  /** @default a silent logger */
  logger?: Logger;
}

export interface ResolvedOptions {
  host: string;
  port: number;
  speed: number;
  capacity: number;
  credits: number;
  seed: number;
  faults: FaultProfile;
  credentials: { apiId: string; apiKey: string } | undefined;
  outputTtlSeconds: number;
  allowAnyWebhookHost: boolean;
  insufficientCredits: 'refuse' | 'fail';
  journal: string | undefined;
  clock: Clock;
  logger: Logger;
}

function check(name: string, value: number, ok: boolean, accepted: string): number {
  if (!Number.isFinite(value) || !ok) throw new UsageError(`sandbox option ${name}: ${value} is not accepted; ${accepted}`);
  return value;
}

function checkJournal(file: string): string {
  if (file.trim() === '') throw new UsageError('sandbox option journal: an empty path is not accepted; give a file path');
  return file;
}

/** Defaults filled in and every number checked, so a bad flag fails before anything listens. */
export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const speed = options.speed ?? 1;
  const capacity = options.capacity ?? 4;
  const credits = options.credits ?? 10_000;
  const ttl = options.outputTtlSeconds ?? 3600;
  const port = options.port ?? 0;
  if ((options.apiId === undefined) !== (options.apiKey === undefined)) {
    throw new UsageError('sandbox options apiId and apiKey go together: give both or neither');
  }
  return {
    host: options.host ?? '127.0.0.1',
    port: check('port', port, Number.isInteger(port) && port >= 0 && port < 65536, 'use 0 to 65535'),
    speed: check('speed', speed, speed > 0, 'use a number above 0'),
    capacity: check('capacity', capacity, Number.isInteger(capacity) && capacity >= 1, 'use a whole number from 1'),
    credits: check('credits', credits, credits >= 0, 'use a number from 0'),
    seed: check('seed', options.seed ?? 1, Number.isInteger(options.seed ?? 1), 'use a whole number'),
    faults: resolveFaultProfile(options.faults),
    credentials: options.apiId !== undefined ? { apiId: options.apiId, apiKey: options.apiKey! } : undefined,
    outputTtlSeconds: check('outputTtlSeconds', ttl, ttl > 0, 'use a number of seconds above 0'),
    allowAnyWebhookHost: options.allowWebhookHosts === 'any',
    insufficientCredits: options.insufficientCredits ?? 'refuse',
    journal: options.journal === undefined ? undefined : checkJournal(options.journal),
    clock: options.clock ?? systemClock,
    logger: options.logger ?? pino({ level: 'silent' }),
  };
}
