import { relative, resolve } from 'node:path';
import {
  ApiConnectionError, ApiRateLimitError, ApiServerError, ApiTimeoutError, RETRY_DEFAULTS, type ApiStatusError,
} from '../../api/index.js';
import { DownloadError } from '../../errors.js';
import {
  fetchOutput, guardedDispatcher, outputPath, RefreshUnavailableError, stampUnchanged, verifyRecorded, writeInline, type DownloadedFile, type DownloadRequestLine, type RecordedFile,
} from '../../download/index.js';
import type { DownloadedRecord, JobRow, OutputRow } from '../../state/index.js';
import { adapterFor, type ItemsOfKind, type KindAdapter, type OutputSpec, type Resource } from '../adapters/index.js';
import { callFor, type RunContext } from '../run-context.js';
import { announce } from '../announce.js';
import { linksOf, outputsOf } from './output-links.js';
import { downloadFailureReason } from './refused-download.js';
import { claimPath, inSupersededFolder, restorePlaces } from './superseded-files.js';

/**
 * Brings every output of a finished job onto disk, verified, then marks it `downloaded`. A file
 * already recorded with its checksum and still intact (see verifyRecorded) is not fetched again.
 * Returns false when some file could not be fetched: the job stays `done`, the reason recorded as
 * its `failed_reason` (shown by `reelpipe status`) until a later run fetches it — at once if it
 * failed for now, after a person's fix if it was refused (refused-download.ts).
 */
export async function downloadOutputs(ctx: RunContext, job: JobRow): Promise<boolean> {
  const planned = ctx.planned.get(job.key);
  const adapter = adapterFor(job.kind, planned?.mode);
  const outputs = await outputsOf(ctx.store, job.key, planned, adapter, job.result);
  // Recorded already when the job was seen finished; a refreshed or changed answer records them here.
  await ctx.store.write({ key: job.key, outputs: linksOf(outputs) });
  const recorded = new Map((await ctx.store.outputs(job.key)).map((row) => [row.idx, row]));
  // The last file's record is committed with the job's move to `downloaded` (one commit, not two);
  // the others each as soon as they land, so a run killed between files fetches only the rest.
  let last: { idx: number; file: DownloadedRecord } | undefined;
  try {
    for (const [position, output] of outputs.entries()) {
      if (ctx.stop.halted) return false;
      const idx = output.idx ?? position;
      if (await stillIntact(ctx, job.key, recorded.get(idx))) continue;
      const file = await fetchOne(ctx, job, output, idx);
      ctx.kill('after-download');
      const record = { ...file, path: relative(ctx.outputsDir, file.path) };
      if (position === outputs.length - 1) last = { idx, file: record };
      else await ctx.store.recordDownload(job.key, idx, record);
    }
  } catch (error) {
    if (ctx.stop.halted) return false;
    const message = downloadFailureReason(error);
    await outputMissing(ctx, job.key, message);
    ctx.events.emit('job:download-failed', { key: job.key, step: job.step, message });
    return false;
  }
  // Downloaded — or, when some item it was to make failed, partly failed: its made files are on disk.
  const finished = await ctx.store.finishDownload(job.key, last, outputs.length);
  if ('missing' in finished) {
    const { missing } = finished;
    await outputMissing(ctx, job.key, `${missing} file${missing === 1 ? '' : 's'} of this job lost ${missing === 1 ? 'its' : 'their'} record while another was fetched; the next run fetches ${missing === 1 ? 'it' : 'them'}`);
    return false;
  }
  const row = finished.row;
  announce(ctx, row, outputs.length === 0 ? undefined : `${outputs.length} file${outputs.length === 1 ? '' : 's'}`);
  return true;
}

/** The job stays `done`, with why a file of it is not on disk (`reelpipe status` shows it). */
async function outputMissing(ctx: RunContext, key: string, message: string): Promise<void> {
  await ctx.store.write({ key, move: { to: 'done', change: { failedReason: message }, type: 'job:output-missing', data: { message } } });
}

/** Whether every file recorded for a downloaded job is still on disk, unchanged (see verifyRecorded). */
export async function outputsIntact(ctx: RunContext, job: Pick<JobRow, 'key'>): Promise<boolean> {
  let recorded = ctx.start.outputs.get(job.key) ?? (await ctx.store.outputs(job.key));
  ctx.start.outputs.delete(job.key);
  // A job back in the plan (an edit undone) takes its files' places back first.
  if (recorded.some((row) => inSupersededFolder(row.path, job.key)) && (await restorePlaces(ctx, job.key))) recorded = await ctx.store.outputs(job.key);
  for (const row of recorded) if (!(await stillIntact(ctx, job.key, row))) return false;
  return true;
}

/**
 * Whether a job the run started with is finished and needs nothing from it: downloaded, no output
 * hook for its step (a hook may be owed), and every recorded file trusted unread by its stat stamp.
 * Such a job is settled before the drive (execute-plan.ts), with one stat per file and no promise:
 * the whole of a finished 10,000-job re-run's work on its jobs. Anything else — a stamp that
 * changed, a file missing — goes through driveJob, which re-hashes or fetches again.
 */
export function finishedAtStart(ctx: RunContext, key: string): boolean {
  const row = ctx.start.rows.get(key);
  if ((row?.status !== 'downloaded' && row?.status !== 'partly_failed') || (ctx.outputHooks && ctx.outputHooks.commandFor(row.step))) return false;
  const trusted = (ctx.start.outputs.get(key) ?? []).every((row) => {
    if (inSupersededFolder(row.path, key)) return false;
    const file = recordedFile(ctx, row);
    return file !== null && stampUnchanged(file.path, file.recorded);
  });
  if (!trusted) return false;
  ctx.start.rows.delete(key);
  ctx.start.outputs.delete(key);
  return true;
}

/** Checks one recorded file; one read in full and found intact has its new stat stamp recorded. */
async function stillIntact(ctx: RunContext, key: string, row: OutputRow | undefined): Promise<boolean> {
  const file = recordedFile(ctx, row);
  if (!file) return false;
  const check = await verifyRecorded(file.path, file.recorded);
  if (check.intact && check.statStamp !== file.recorded.statStamp) await ctx.store.recordVerified(key, file.idx, check.statStamp);
  return check.intact;
}

/** A recorded output's file on disk and what was recorded of it; null when it was never fully recorded (no path, checksum or size). */
function recordedFile(ctx: RunContext, row: OutputRow | undefined): { path: string; idx: number; recorded: RecordedFile } | null {
  if (!row?.path || !row.sha256 || row.bytes === null) return null;
  return { path: resolve(ctx.outputsDir, row.path), idx: row.idx, recorded: { bytes: row.bytes, sha256: row.sha256, statStamp: row.statStamp } };
}

async function fetchOne(ctx: RunContext, job: JobRow, output: OutputSpec, idx: number): Promise<DownloadedFile> {
  const name = { step: job.step, name: job.outputName ?? job.key, ...(output.suffix ? { suffix: output.suffix } : {}) };
  if (output.inline !== undefined) {
    const path = outputPath(ctx.outputsDir, { ...name, ext: 'txt' });
    await claimPath(ctx, job.key, path);
    return writeInline(path, output.inline, ctx.folders);
  }
  let killedOnce = false;
  // A download is a request to its host like any other: it waits its turn with that host's limiter.
  await ctx.limiters.for(output.url as string).acquire(ctx.stop.controller.signal);
  return fetchOutput(output.url as string, {
    outputsDir: ctx.outputsDir,
    folders: ctx.folders,
    name,
    media: output.media,
    signal: ctx.stop.controller.signal,
    // Outputs come from public addresses, the service's own host, or hosts the operator allows.
    dispatcher: guardedDispatcher({ serviceUrl: ctx.client.baseUrl, allowHosts: ctx.options.downloadAllowHosts }),
    maxBytes: ctx.options.maxDownloadBytes,
    sleep: (ms) => ctx.clock.sleep(ms * ctx.options.timeScale, ctx.stop.controller.signal),
    onChunk: () => {
      if (killedOnce) return;
      killedOnce = true;
      ctx.kill('mid-download');
    },
    refresh: () => refreshUrl(ctx, job, idx),
    // An earlier version's file at this name (an edited row's old job) is kept, moved aside.
    claim: (path) => claimPath(ctx, job.key, path),
    // Each download attempt is a request in the run's log, like the client's, naming the job.
    ...(ctx.logger.isLevelEnabled('debug') ? { onRequest: (line: DownloadRequestLine) => ctx.logger.debug({ ...callFor(ctx, job.key).log, ...line }, 'request') } : {}),
  });
}

/**
 * Re-reads the job for a fresh output URL (CDN links expire), recording the new result. A read
 * failing for now (429, 5xx, no answer: after the client's own retries) is a RefreshUnavailableError,
 * so fetchOutput pauses (the service's Retry-After when it gave one) and re-reads on its next try.
 */
async function refreshUrl(ctx: RunContext, job: JobRow, idx: number): Promise<string | undefined> {
  const adapter = adapterFor(job.kind, ctx.planned.get(job.key)?.mode);
  if (adapter.items) return refreshItemUrl(ctx, job, { ...adapter, items: adapter.items }, idx);
  if (!adapter.read || !job.remoteId) throw new DownloadError(`${job.key}: the output link expired and ${job.kind} jobs cannot be re-read`);
  await ctx.limiter.acquire(ctx.stop.controller.signal);
  const resource = await readForRefresh(ctx, adapter, job.remoteId, job.key);
  const outputs = adapter.view(resource).outputs;
  await ctx.store.write({ key: job.key, move: { to: 'done', change: { result: resource }, type: 'job:status', data: { refreshed: true } }, outputs: linksOf(outputs) });
  return outputs[idx]?.url;
}

/**
 * An item's fresh link: its own remote job (the attempt that made it, perhaps an earlier one than
 * the job's current) is read again, and the item's outcome in that read recorded.
 */
async function refreshItemUrl(ctx: RunContext, job: JobRow, adapter: KindAdapter & { items: ItemsOfKind }, idx: number): Promise<string | undefined> {
  const item = (await ctx.store.items(job.key)).find((i) => i.idx === idx);
  if (!adapter.read || !item?.remoteId) throw new DownloadError(`${job.key}: the output link expired and its item cannot be re-read`);
  await ctx.limiter.acquire(ctx.stop.controller.signal);
  const resource = await readForRefresh(ctx, adapter, item.remoteId, job.key);
  const fresh = adapter.items.read(resource, [item.item], null).get(item.item);
  if (fresh?.state !== 'done' || !fresh.url) return undefined;
  const { jobKey: _, ...refreshed } = { ...item, url: fresh.url };
  await ctx.store.write({ key: job.key, items: [refreshed], ...(ctx.planned.get(job.key)?.download === false ? {} : { outputs: 'items' as const }) });
  return fresh.url;
}

/** A read of `remoteId` for a fresh link; one failing for now is a RefreshUnavailableError (see refreshUrl). */
async function readForRefresh(ctx: RunContext, adapter: KindAdapter, remoteId: string, key: string): Promise<Resource> {
  return (adapter.read as NonNullable<KindAdapter['read']>)(ctx.client, remoteId, callFor(ctx, key)).catch((error: unknown) => {
    if (!isTransient(error)) throw error;
    const advised = (error as ApiStatusError).retryAfterSeconds;
    const retryAfterMs = advised === undefined ? undefined : Math.min(advised * 1000, RETRY_DEFAULTS.maxRetryAfterMs);
    throw new RefreshUnavailableError((error as Error).message, retryAfterMs, error);
  });
}

/** Why: these say "not now" (rate limited, the service struggling, no answer), not "never". */
function isTransient(error: unknown): boolean {
  return [ApiRateLimitError, ApiServerError, ApiTimeoutError, ApiConnectionError].some((Class) => error instanceof Class);
}
