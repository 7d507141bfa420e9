import type { Readable } from 'node:stream';
import type { HookResult } from '../../state/index.js';
import { redactSecrets } from '../../util/logger.js';

/**
 * Why 4 KB of each stream: enough for the error a failing command prints last (a stack trace's
 * head, curl's message), small enough to keep for every output of a 100,000-job run. The rest
 * is read and dropped as it comes, so a chatty hook never fills memory nor blocks on its pipe.
 */
export const TAIL_BYTES = 4096;
/** Why 5 s: after its timeout's SIGTERM, a hook gets this long to clean up before SIGKILL. */
const FORCE_KILL_AFTER_MS = 5000;

export interface CommandOptions {
  cwd: string;
  /** The whole environment of the command (nothing else is inherited). */
  env: Record<string, string>;
  timeoutMs: number;
  /** Values never to keep in the output tails (the credentials). */
  secrets: readonly (string | undefined)[];
}

/**
 * Runs `[command, …args]` directly — execa with no shell, so no argument is ever parsed again —
 * with no input, within its timeout, and says how it ended. Never throws for the command's
 * failure (not found, a non-zero exit, a signal, the timeout): that is the result.
 */
export async function runCommand(argv: readonly string[], options: CommandOptions): Promise<HookResult> {
  const [file = '', ...args] = argv;
  // Loaded on use: a run without hooks never loads execa.
  const { execa } = await import('execa');
  const child = execa(file, args, {
    shell: false,
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    timeout: options.timeoutMs,
    killSignal: 'SIGTERM',
    forceKillAfterDelay: FORCE_KILL_AFTER_MS,
    windowsHide: true,
  });
  const stdout = tail(child.stdout);
  const stderr = tail(child.stderr);
  const result = await child;
  const exitCode = result.exitCode ?? null;
  return {
    ok: !result.failed && exitCode === 0,
    exitCode,
    signal: result.signal ?? null,
    timedOut: result.timedOut,
    durationMs: Math.round(result.durationMs),
    stdoutTail: redactSecrets(stdout.text(), options.secrets),
    stderrTail: redactSecrets(stderr.text(), options.secrets),
    error: failureOf(result, file, options.timeoutMs),
  };
}

/** Why a command did not run to an exit of its own, in words; null when it exited (its code says the rest). */
function failureOf(result: { timedOut: boolean; signal?: string; exitCode?: number; code?: string; originalMessage?: string; shortMessage?: string }, file: string, timeoutMs: number): string | null {
  if (result.timedOut) return `stopped after its timeout of ${timeoutMs / 1000} s`;
  if (result.signal) return `ended by ${result.signal}`;
  if (result.exitCode !== undefined) return null;
  if (result.code === 'ENOENT') return `command not found: ${file}`;
  if (result.code === 'EACCES') return `not allowed to run (not executable?): ${file}`;
  return `could not start ${file}: ${result.originalMessage ?? result.shortMessage ?? result.code ?? 'unknown error'}`;
}

/** Keeps the last TAIL_BYTES of a stream, reading (and dropping) everything before. */
function tail(stream: Readable | null): { text: () => string } {
  let kept = Buffer.alloc(0);
  stream?.on('data', (chunk: Buffer) => {
    kept = Buffer.concat([kept, chunk]);
    if (kept.length > TAIL_BYTES) kept = kept.subarray(kept.length - TAIL_BYTES);
  });
  // A cut may land inside a UTF-8 character: the decoder's replacement character is dropped.
  return { text: () => kept.toString('utf8').replace(/^\uFFFD+/, '') };
}
