import { relative, resolve } from 'node:path';
import { DownloadError } from '../errors.js';
import { fetchOutput, fileMatches, outputPath, writeInline, type DownloadedFile } from '../download/index.js';
import type { JobRow, OutputRow } from '../state/index.js';
import { adapterFor, type OutputSpec } from './adapters/index.js';
import type { RunContext } from './run-context.js';
import { announce } from './submit-job.js';

/** Marks the text outputs (which have no URL) in the outputs table. */
const INLINE_URL = 'inline:';

/**
 * Brings every output of a finished job onto disk, verified, then marks it `downloaded`. A file
 * already recorded with its checksum and still intact is not fetched again. Returns false when
 * some file could not be fetched: the job stays `done` and the next run tries again.
 */
export async function downloadOutputs(ctx: RunContext, job: JobRow): Promise<boolean> {
  const planned = ctx.planned.get(job.key);
  const adapter = adapterFor(job.kind, planned?.mode);
  const outputs = planned?.download === false || !job.result ? [] : adapter.view(job.result).outputs;
  ctx.store.setOutputs(job.key, outputs.map((o) => o.url ?? INLINE_URL));
  const recorded = ctx.store.outputs(job.key);
  try {
    for (const [idx, output] of outputs.entries()) {
      if (ctx.stop.halted) return false;
      if (await stillIntact(ctx.outputsDir, recorded[idx])) continue;
      const file = await fetchOne(ctx, job, output, idx);
      ctx.kill('after-download');
      ctx.store.recordDownload(job.key, idx, { ...file, path: relative(ctx.outputsDir, file.path) });
    }
  } catch (error) {
    if (ctx.stop.halted) return false;
    const message = error instanceof Error ? error.message : String(error);
    ctx.store.event('job:output-missing', job.key, { message });
    ctx.events.emit('job:download-failed', { key: job.key, step: job.step, message });
    return false;
  }
  const row = ctx.store.transition(job.key, 'downloaded', {}, 'job:downloaded', { files: outputs.length });
  announce(ctx, row, outputs.length === 0 ? undefined : `${outputs.length} file${outputs.length === 1 ? '' : 's'}`);
  return true;
}

/** Whether every file recorded for a downloaded job is still on disk with its size (a free check). */
export async function outputsIntact(ctx: RunContext, job: JobRow): Promise<boolean> {
  for (const row of ctx.store.outputs(job.key)) if (!(await stillIntact(ctx.outputsDir, row))) return false;
  return true;
}

async function stillIntact(outputsDir: string, row: OutputRow | undefined): Promise<boolean> {
  if (!row?.path || !row.sha256 || row.bytes === null) return false;
  return fileMatches(resolve(outputsDir, row.path), row.bytes, row.sha256);
}

async function fetchOne(ctx: RunContext, job: JobRow, output: OutputSpec, idx: number): Promise<DownloadedFile> {
  const name = { step: job.step, name: job.outputName ?? job.key, ...(output.suffix ? { suffix: output.suffix } : {}) };
  if (output.inline !== undefined) {
    return writeInline(outputPath(ctx.outputsDir, { ...name, ext: 'txt' }), output.inline);
  }
  let killedOnce = false;
  return fetchOutput(output.url as string, {
    outputsDir: ctx.outputsDir,
    name,
    media: output.media,
    signal: ctx.stop.controller.signal,
    sleep: (ms) => ctx.clock.sleep(ms * ctx.options.timeScale, ctx.stop.controller.signal),
    onChunk: () => {
      if (killedOnce) return;
      killedOnce = true;
      ctx.kill('mid-download');
    },
    refresh: () => refreshUrl(ctx, job, idx),
  });
}

/** Re-reads the job for a fresh output URL (CDN links expire), recording the new result. */
async function refreshUrl(ctx: RunContext, job: JobRow, idx: number): Promise<string | undefined> {
  const adapter = adapterFor(job.kind, ctx.planned.get(job.key)?.mode);
  if (!adapter.read || !job.remoteId) throw new DownloadError(`${job.key}: the output link expired and ${job.kind} jobs cannot be re-read`);
  await ctx.limiter.acquire(ctx.stop.controller.signal);
  const resource = await adapter.read(ctx.client, job.remoteId);
  ctx.store.transition(job.key, 'done', { result: resource }, 'job:status', { refreshed: true });
  const outputs = adapter.view(resource).outputs;
  ctx.store.setOutputs(job.key, outputs.map((o) => o.url ?? INLINE_URL));
  return outputs[idx]?.url;
}
