// One `reelpipe run` of the soak as a child process, SIGKILLed by the harness after a delay
// (a "timed" kill: any instant at all), or made to SIGKILL itself at a named instant through the
// runner's test hook REELPIPE_TEST_KILL_AT (a "point" kill: after a POST was answered but before
// its id was committed, and so on). Its stderr goes to a file in the workspace for post-mortems.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Runs `args` (after `node CLI`) and resolves with { code, signal, killed, hung, ms, during }.
 * `killAfterMs`: SIGKILL the run then, if it is still going. `timeoutMs`: a run still going then is hung: it is killed and the soak fails loudly (options.js: runTimeoutMs). `pause`: { afterMs, forMs } SIGSTOPs it then, and SIGCONTs it forMs later.
 * `during`: { NAME: { afterMs, action } } runs each `action()` that long after the start while the
 * run is still going (the sandbox's own kill, the database's restart), or right after the run
 * ends if it ended first; each promise is awaited before resolving, its result as `during.NAME`.
 */
export async function runOnce({ cli, args, cwd, env, stderrFile, killAfterMs, during = {}, pause, timeoutMs }) {
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
  timers.push(setTimeout(() => (hung = child.kill('SIGKILL')), timeoutMs));
  // An action that fails (pg_ctl timing out) is said and counts as not done: the soak's row then fails, the harness goes on.
  const attempt = (name, action, midRun) => action({ midRun }).catch((error) => (process.stderr.write(`chaos: ${name} action failed: ${error.message}\n`), undefined));
  const actions = Object.entries(during).map(([name, { afterMs, action }]) => {
    const one = { name, action, done: undefined };
    timers.push(setTimeout(() => (one.done = attempt(name, action, true)), afterMs));
    return one;
  });
  const { code, signal } = await exited;
  const ms = performance.now() - started;
  for (const timer of timers) clearTimeout(timer);
  const results = await Promise.all(actions.map(async (one) => [one.name, await (one.done ?? attempt(one.name, one.action, false))]));
  return { code, signal, killed: killed && signal === 'SIGKILL', hung, ms, during: Object.fromEntries(results) };
}
