import { AsyncLocalStorage } from 'node:async_hooks';

/** The job a piece of work is for, as every log line written during it names it. */
export interface JobScope {
  key: string;
  label: string;
}

/**
 * Which job the code running now works for, carried along its async calls. Why not a child
 * logger per job: the one service client serves every job, and the lines it writes (each request
 * at debug, a request in doubt at warn) would otherwise name no job. The run's logger reads the
 * scope in its mixin (createLogger's `mixin`).
 */
const scope = new AsyncLocalStorage<JobScope>();

/** Runs `fn` as work for `job`: log lines written inside it, however deep, name the job. */
export function inJobScope<T>(job: JobScope, fn: () => T): T {
  return scope.run(job, fn);
}

/**
 * Runs `fn` as work for no one job. Why: a loop started from inside a job's work (the tracker's
 * polling, which reads every job) would otherwise carry that first job's name on every line.
 */
export function outsideJobScope<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** `{ key, label }` of the job being worked for, or nothing: a logger mixin. */
export function jobScopeFields(): Partial<JobScope> {
  const job = scope.getStore();
  return job ? { key: job.key, label: job.label } : {};
}
