import { isAbsolute, relative, resolve, sep } from 'node:path';
import { DownloadRefusedError } from '../errors.js';

/** Longest file-name segment kept; long enough for a slug, short of every filesystem's limit. */
const MAX_SEGMENT = 120;

/**
 * Makes one path segment safe: only letters, digits, `.`, `_` and `-` survive, runs of anything
 * else become one `-`, no leading dot (no hidden files, no `..`), never empty.
 */
export function sanitizeSegment(raw: string, fallback = 'output'): string {
  const cleaned = raw
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[.-]+/, '')
    .replace(/[.-]+$/, '')
    .slice(0, MAX_SEGMENT);
  return cleaned === '' ? fallback : cleaned;
}

/** Where one output of a job goes. */
export interface OutputName {
  step: string;
  /** The job's output name from the plan (a naming template already applied). */
  name: string;
  /** Tells several files of one job apart (an HTML ad's style, an asset's index). */
  suffix?: string;
  ext: string;
}

/**
 * `OUTPUTS/STEP/NAME[-SUFFIX].EXT`, every part sanitised, and checked once more after resolving:
 * no manifest value can make a path that escapes the outputs folder.
 */
export function outputPath(outputsDir: string, output: OutputName): string {
  const root = resolve(outputsDir);
  const name = sanitizeSegment(output.name);
  const base = output.suffix ? `${name}-${sanitizeSegment(output.suffix, '0')}` : name;
  const ext = sanitizeSegment(output.ext, 'bin').replace(/\./g, '');
  const full = resolve(root, sanitizeSegment(output.step, 'step'), `${base}.${ext || 'bin'}`);
  const rel = relative(root, full);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    throw new DownloadRefusedError(`output path ${full} would escape the outputs folder ${root}`);
  }
  return full;
}
