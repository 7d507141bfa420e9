import { resolve } from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import type { HookCommand, Manifest } from '../../manifest/types.js';
import { type HookRunRow, type JobRow, type OutputRow } from '../../state/index.js';
import { announce } from '../announce.js';
import type { JobOutcome } from '../drive-job.js';
import type { RunContext } from '../run-context.js';
import { hookEnv, renderArgs, secretsOf, type HookValues } from './hook-args.js';
import { runCommand } from './run-command.js';

/** What the output hooks of a run need from its manifest and its process. */
export class OutputHooks {
  private readonly commands: Map<string, HookCommand>;
  /** Output hooks running at once, across every job of the run. */
  readonly limit: LimitFunction;

  constructor(
    readonly manifest: Pick<Manifest, 'file' | 'name' | 'outputsDir' | 'steps' | 'hooks'>,
    /** The run's environment: `{{ env.X }}` and the hooks' own environment come from it. */
    readonly env: NodeJS.ProcessEnv,
  ) {
    this.commands = new Map(manifest.steps.flatMap((s) => (s.onOutput ? [[s.id, s.onOutput] as const] : [])));
    this.limit = pLimit(manifest.hooks.concurrency);
  }

  /** The hooks of a manifest, or null when no step has an output hook. */
  static of(manifest: OutputHooks['manifest'], env: NodeJS.ProcessEnv): OutputHooks | null {
    return manifest.steps.some((s) => s.onOutput) ? new OutputHooks(manifest, env) : null;
  }

  commandFor(step: string): HookCommand | undefined {
    return this.commands.get(step);
  }
}

/**
 * Why a hook is owed for an output: it has never run for it, the run that ran it died first
 * (`running` from an earlier run, or `interrupted`), `retry --hooks` asked for it again, or the
 * file was fetched again with other bytes (another output). `ok` and `failed` stand.
 */
function owed(last: HookRunRow | undefined, output: OutputRow): boolean {
  if (!last || last.outputSha256 !== output.sha256) return true;
  return last.state === 'running' || last.state === 'interrupted' || last.state === 'retried';
}

/** Why these stops start no hook: another run holds the job now, or nothing more can be recorded. */
const refusesHooks = (ctx: RunContext) => ctx.stop.reason === 'lock-lost' || ctx.stop.reason === 'local-fault' || ctx.stop.reason === 'state-held';

/**
 * Runs the output hook owed for each downloaded file of a job (once per file, whatever runs and
 * kills came before), then sets the job's status by how its hooks stand: any failed →
 * `hook_failed`; none failed → `downloaded`. A stop by a signal or --max-wait still runs the
 * hooks owed (each within its timeout), so a job's files never sit downloaded with a hook
 * silently skipped; a lost lock or a local fault starts none (the next run runs them).
 */
export async function runOutputHooks(ctx: RunContext, key: string, status: JobRow['status']): Promise<JobOutcome> {
  const step = ctx.planned.get(key)?.step;
  const command = step === undefined ? undefined : ctx.outputHooks?.commandFor(step);
  // No hook for its step: nothing to read or run (a finished 10,000-job re-run reads no job again).
  if (!command || !ctx.outputHooks) return status === 'hook_failed' ? 'failed' : 'ok';
  const job = await ctx.store.job(key);
  if (!job) return 'ok';
  const hooks = ctx.outputHooks;
  const outputs = (await ctx.store.outputs(key)).filter((o) => o.path !== null && o.sha256 !== null);
  const latest = await ctx.store.hookLatest(key);
  for (const output of outputs) {
    if (!owed(latest.get(output.idx), output)) continue;
    // Checked once a place among the running hooks is free: the run may have stopped meanwhile.
    const row = await hooks.limit(async () => (refusesHooks(ctx) ? undefined : runOne(ctx, hooks, command, job, output)));
    if (!row) return 'unfinished';
    latest.set(output.idx, row);
  }
  const failed = outputs.filter((o) => latest.get(o.idx)?.state === 'failed' && latest.get(o.idx)?.outputSha256 === o.sha256);
  return settle(ctx, job, failed, latest);
}

async function runOne(ctx: RunContext, hooks: OutputHooks, command: HookCommand, job: JobRow, output: OutputRow): Promise<HookRunRow> {
  const values = valuesOf(ctx, hooks, job, output);
  const { argv, shown } = renderArgs(command.argv, values, hooks.env);
  const id = await ctx.store.hookBegin('on_output', { jobKey: job.key, outputIdx: output.idx, sha256: output.sha256 }, shown);
  ctx.kill('before-hook');
  const result = await runCommand(argv, { cwd: resolve(hooks.manifest.file, '..'), env: hookEnv(hooks.env, 'on_output', values), timeoutMs: command.timeoutMs, secrets: secretsOf(hooks.env) });
  ctx.kill('after-hook');
  return ctx.store.hookFinish(id, result);
}

/** What `{{ job.* }}`, `{{ output.* }}`, `{{ run.* }}`, `{{ row.* }}` and `{{ matrix.* }}` read for one file. */
function valuesOf(ctx: RunContext, hooks: OutputHooks, job: JobRow, output: OutputRow): HookValues {
  const planned = ctx.planned.get(job.key);
  const { manifest } = hooks;
  return {
    job: { key: job.key, label: planned?.label ?? job.key, step: job.step, kind: job.kind, remote_id: job.remoteId, origin: planned?.origin, output_name: job.outputName },
    output: {
      path: resolve(ctx.outputsDir, output.path ?? ''), relative_path: output.path, index: output.idx, bytes: output.bytes, sha256: output.sha256,
      content_type: output.contentType,
    },
    run: { id: ctx.store.runId, manifest: manifest.file, name: manifest.name, outputs: ctx.outputsDir },
    row: planned?.row,
    matrix: planned?.matrix,
  };
}

/** The job's status follows its hooks: a failed one (the files stay) is `hook_failed`, else `downloaded` (or `partly_failed`). */
async function settle(ctx: RunContext, job: JobRow, failed: readonly OutputRow[], latest: Map<number, HookRunRow>): Promise<JobOutcome> {
  if (failed.length === 0) {
    const back = await ctx.store.write({ key: job.key, onlyFrom: ['hook_failed'], move: { to: 'made', type: 'job:hooks-retry', data: { hooks: 'ok' } } });
    if (back.moved) announce(ctx, back.row);
    return 'ok';
  }
  const first = latest.get(failed[0]!.idx)!;
  const why = `on_output hook failed for ${failed.length === 1 ? `file ${failed[0]!.path}` : `${failed.length} files`}: ${hookFailureText(first)}`;
  const held = await ctx.store.write({
    key: job.key,
    onlyFrom: ['downloaded', 'partly_failed'],
    move: { to: 'hook_failed', change: { failedReason: why }, type: 'job:hook-failed', data: { outputs: failed.map((o) => o.idx) } },
  });
  if (held.moved) announce(ctx, held.row, why);
  return 'failed';
}

/** `exit 3`, `stopped after its timeout of 5 s`, `command not found: x`, with the last line of stderr. */
export function hookFailureText(row: Pick<HookRunRow, 'exitCode' | 'error' | 'stderrTail'>): string {
  const how = row.error ?? `exit ${row.exitCode ?? '?'}`;
  const last = row.stderrTail.trim().split('\n').at(-1)?.trim();
  return last ? `${how} — ${last.length > 200 ? `${last.slice(0, 199)}…` : last}` : how;
}
