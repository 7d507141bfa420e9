import { UsageError } from '../errors.js';
import { undici } from '../util/lazy-undici.js';
import { readCapped } from './read-body.js';

/** How long the probe waits for the whole answer. Why 5 s: a sandbox answers in milliseconds; a firewall that drops packets should not hold a rehearsal for a minute. */
const PROBE_TIMEOUT_MS = 5_000;
/** Largest answer read. Why: the stats are a few kilobytes; whatever else answers may not be. */
const PROBE_MAX_BYTES = 1024 * 1024;

/** What a run needs to know of a standalone sandbox before it starts. */
export interface SandboxFacts {
  /** Every duration of the sandbox is divided by it: the run scales its own waits by 1/speed. */
  speed: number;
}

/**
 * Reads `GET /__sandbox/stats` of the sandbox at `url` (open, no credentials) and returns its
 * speed. An address where nothing answers, or whose answer is not a reelpipe sandbox's counters,
 * is refused with a UsageError (exit 2) naming `--sandbox-url` and the address; nothing else has
 * been sent to it then.
 *
 * Policy, why exit 2: the address the operator typed is what is wrong (a port mistyped, the
 * sandbox not started yet, the real service's address given by mistake); the machine is fine
 * (not 74) and running the same command again changes nothing (not 4). Why refuse a server that
 * is not a sandbox rather than go on: `--sandbox-url` promises a rehearsal, with sandbox outputs
 * and state; sent to anything else, it could spend real credits under a state that calls them a
 * rehearsal's.
 */
export async function probeSandbox(url: string): Promise<SandboxFacts> {
  const where = `--sandbox-url ${url}`;
  let answer: { status: number; text: string };
  try {
    const response = await undici().request(`${url}/__sandbox/stats`, { method: 'GET', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    answer = { status: response.statusCode, text: await readCapped(response.body, response.headers, PROBE_MAX_BYTES) };
  } catch (error) {
    throw new UsageError(
      `${where}: no answer there (${failureOf(error)}); start the sandbox first (reelpipe sandbox --port PORT) and give the address it prints. Nothing was sent.`,
    );
  }
  const speed = speedIn(answer.status, answer.text);
  if (typeof speed === 'number') return { speed };
  throw new UsageError(`${where}: not a reelpipe sandbox: ${speed}; give the address \`reelpipe sandbox\` prints. Nothing was sent.`);
}

/** The speed the stats state, or why the answer is not a sandbox's stats. */
function speedIn(status: number, text: string): number | string {
  if (status !== 200) return `GET /__sandbox/stats answered ${status}, where a sandbox answers 200 with its counters`;
  let stats: unknown;
  try {
    stats = JSON.parse(text);
  } catch {
    return 'GET /__sandbox/stats answered something other than JSON';
  }
  const fields = (stats ?? {}) as Record<string, unknown>;
  if (typeof fields.created !== 'object' || typeof fields.credits !== 'object') return "GET /__sandbox/stats answered JSON without a sandbox's counters";
  const speed = fields.speed;
  if (typeof speed !== 'number' || !(speed > 0)) return 'its /__sandbox/stats states no speed (a sandbox of an older reelpipe: start it with this one)';
  return speed;
}

function failureOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `nothing within ${PROBE_TIMEOUT_MS / 1000} s`;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}
