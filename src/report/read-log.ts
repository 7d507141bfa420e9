import { createReadStream } from 'node:fs';
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { BoundedLines } from '../util/bounded-lines.js';
import { isoTime } from '../util/time-format.js';

/**
 * A log line longer than this is skipped (and counted), never held whole. Why 1 MiB: a run's
 * lines are a few hundred bytes; a longer one is not a line reelpipe wrote, and reading a log
 * must stay bounded whatever the file holds.
 */
export const MAX_LOG_LINE_BYTES = 1024 * 1024;

/** Which lines of a run's log to show. */
export interface LogFilter {
  /** A job's key or label: only the lines about that job. @default every line */
  job?: string;
  /** The lowest level shown, as pino numbers it (debug 20, info 30, warn 40…). @default every level */
  minLevel?: number;
}

/** pino's level numbers by name (`trace` 10 … `fatal` 60). */
export const LEVEL_VALUES: Readonly<Record<string, number>> = pino.levels.values;

/**
 * Streams the lines of `file` that pass `filter` to `emit`, as written (the raw NDJSON text),
 * reading it in chunks: a log of any size is never loaded whole. Resolves with how many lines
 * were shown, and how many were skipped as too long or not JSON.
 */
export async function readLogLines(file: string, filter: LogFilter, emit: (line: string) => void): Promise<{ shown: number; skipped: number }> {
  let shown = 0;
  let skipped = 0;
  const take = (text: string) => {
    if (text.trim() === '') return;
    const parsed = parseLine(text);
    if (!parsed) skipped++;
    else if (passes(parsed, filter)) {
      shown++;
      emit(text);
    }
  };
  const lines = new BoundedLines(MAX_LOG_LINE_BYTES, take, () => skipped++);
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) lines.push(chunk);
  lines.end();
  return { shown, skipped };
}

type LogLine = { level?: unknown; key?: unknown; label?: unknown };

function parseLine(text: string): LogLine | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as LogLine) : undefined;
  } catch {
    return undefined;
  }
}

function passes(line: LogLine, filter: LogFilter): boolean {
  if (filter.minLevel !== undefined && (typeof line.level !== 'number' || line.level < filter.minLevel)) return false;
  return filter.job === undefined || line.key === filter.job || line.label === filter.job;
}

/**
 * A log line as people read it (pino-pretty, on one line, no colour): `2026-11-23T03:43:59.123+01:00
 * INFO: short-TR2-BLK (shorts:f99f…)  submitted {"step":"shorts",…}` — the time in ISO with its
 * zone, the job's label and key first when the line is about a job, the run id left out (the
 * command names the run).
 */
export function prettyLogLine(): (line: string) => string {
  const pretty = prettyFactory({
    colorize: false,
    singleLine: true,
    translateTime: false,
    // Our lines carry an `error` text (a failed request): kept in the line, not printed below it.
    errorLikeObjectKeys: [],
    ignore: 'runId,key,label,pid,hostname',
    customPrettifiers: { time: (value) => isoTime(Number(value)) },
    messageFormat: (log, messageKey) => {
      const job = typeof log.key === 'string' ? `${typeof log.label === 'string' ? `${log.label} (${log.key})` : log.key}  ` : '';
      return `${job}${String(log[messageKey] ?? '')}`;
    },
  });
  return (line) => pretty(line);
}
