/**
 * TEST ONLY. `REELPIPE_TEST_KILL_AT=POINT:N[,POINT:N…]` makes the runner SIGKILL itself the Nth
 * time it reaches POINT, so the crash tests can prove that a kill at that exact instant loses
 * nothing and pays for nothing twice. Unset (always, outside tests), every call is a no-op.
 *
 * Points: `before-post` (intent committed, POST not sent), `after-post` (POST answered, remote id
 * not committed), `after-submit` (the answer committed: the job is at the service, tracked from
 * now on), `after-poll` (a read answered, not committed), `mid-download` (part of a file
 * written), `after-download` (file in place, checksum not committed), `before-hook` (an output
 * hook's `running` row committed, its command not started), `after-hook` (the command ended, its
 * result not committed).
 *
 * `REELPIPE_TEST_KILL_SIGNAL=SIGSTOP` pauses the process there instead (the paused-run tests: a run
 * frozen at that instant, its lease running out, then resumed with SIGCONT).
 */
export const KILL_POINTS = ['before-post', 'after-post', 'after-submit', 'after-poll', 'mid-download', 'after-download', 'before-hook', 'after-hook'] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

export type KillHook = (point: KillPoint) => void;

export const noKill: KillHook = () => undefined;

export function killHookFromEnv(env: NodeJS.ProcessEnv, kill: () => void = () => process.kill(process.pid, pauseInstead(env) ? 'SIGSTOP' : 'SIGKILL')): KillHook {
  const spec = env.REELPIPE_TEST_KILL_AT?.trim();
  if (!spec) return noKill;
  const targets = new Map<string, number>();
  for (const part of spec.split(',')) {
    const [point, nth] = part.split(':');
    if (point && (KILL_POINTS as readonly string[]).includes(point)) targets.set(point, Math.max(1, Number(nth ?? 1) || 1));
  }
  const seen = new Map<string, number>();
  return (point) => {
    const target = targets.get(point);
    if (target === undefined) return;
    const count = (seen.get(point) ?? 0) + 1;
    seen.set(point, count);
    if (count === target) kill();
  };
}

/** Whether the test asks for a pause (SIGSTOP) rather than a kill at the point. */
const pauseInstead = (env: NodeJS.ProcessEnv): boolean => env.REELPIPE_TEST_KILL_SIGNAL?.trim() === 'SIGSTOP';
