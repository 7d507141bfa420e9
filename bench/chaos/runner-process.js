// One `reelpipe run` of the soak as a child process, SIGKILLed by the harness after a delay
// (a "timed" kill: any instant at all), or made to SIGKILL itself at a named instant through the
// runner's test hook REELPIPE_TEST_KILL_AT (a "point" kill: after a POST was answered but before
// its id was committed, and so on). Its stderr goes to a file in the workspace for post-mortems.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** A run still going after this long is hung: it is killed and the soak fails loudly. */
export const RUN_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs `args` (after `node CLI`) and resolves with { code, signal, killed, hung, ms }.
 * `killAfterMs`: SIGKILL the run then, if it is still going. `pause`: { afterMs, forMs } SIGSTOPs it then, and SIGCONTs it forMs later. `during`: { afterMs, action } runs
 * `action()` that long after the start while the run is still going (the sandbox's own kill),
 * or right after the run ends if it ended first; its promise is awaited before resolving.
 */
export async function runOnce({ cli, args, cwd, env, stderrFile, killAfterMs, during, pause }) {
  const err = openSync(stderrFile, 'w');
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'ignore', err] });
  closeSync(err);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let killed = false;
  let hung = false;
  const timers = [];
  if (killAfterMs !== undefined) timers.push(setTimeout(() => (killed = child.kill('SIGKILL')), killAfterMs));
  // `pause`: { afterMs, forMs }: SIGSTOP then SIGCONT (a frozen host, past its lease when forMs is longer).
  if (pause) timers.push(setTimeout(() => child.kill('SIGSTOP') && timers.push(setTimeout(() => child.kill('SIGCONT'), pause.forMs)), pause.afterMs));
  timers.push(setTimeout(() => (hung = child.kill('SIGKILL')), RUN_TIMEOUT_MS));
  let duringDone = Promise.resolve(undefined);
  let duringStarted = false;
  if (during) {
    timers.push(setTimeout(() => {
      duringStarted = true;
      duringDone = during.action({ midRun: true });
    }, during.afterMs));
  }
  const { code, signal } = await exited;
  const ms = performance.now() - started;
  for (const timer of timers) clearTimeout(timer);
  if (during && !duringStarted) duringDone = during.action({ midRun: false });
  const duringResult = await duringDone;
  return { code, signal, killed: killed && signal === 'SIGKILL', hung, ms, during: duringResult };
}
