import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { NAME_PATTERN } from './check/schema.js';
import { readTextFile } from './read/text-file.js';
import { parseYaml } from './read/yaml-source.js';
import { MAX_MANIFEST_MB, MB } from './syntax/limits.js';

/**
 * A manifest's identity: `project/name` — its `project:` and its `name:` — or `name` alone when it
 * has no project. It keys every row of its state (its jobs, runs, charges, events, its run lock),
 * so the same manifest copied to another checkout, another folder or another host is the same
 * manifest: its jobs are never paid for again, never run by two processes at once.
 *
 * Why `name` alone without a project (not `/name`): it is what a person wrote and reads in every
 * message; it is unambiguous since neither a name nor a project holds a `/` (NAME_PATTERN), and
 * neither can be confused with the absolute path a manifest was known by before (rows still keyed
 * by one are re-keyed by the first command that loads it: run/adopt-identity.ts).
 */
export function manifestId(name: string, project?: string): string {
  return project ? `${project}/${name}` : name;
}

/**
 * The manifest file's real path: reached through a symlinked release directory, a moved
 * checkout's link or a bind mount, it is the same file. Where its data files, its project's
 * `state/` folder and its hooks' working directory are found from; and how its rows were keyed
 * before a manifest was known by its name.
 */
export async function manifestRealPath(file: string, cwd: string = process.cwd()): Promise<string> {
  const resolved = path.resolve(cwd, file);
  return realpath(resolved).catch(() => resolved);
}

/**
 * The identity the manifest at `file` declares, read from its `name:` and `project:` alone (the
 * rest of it need not be valid); undefined when it cannot be read, is not YAML, or declares no
 * valid name. For the commands that work on a manifest's runs without loading it (runs, logs,
 * unlock, forget), and to tell which manifest an older path-keyed row belongs to.
 */
export async function readManifestId(file: string): Promise<string | undefined> {
  const read = await readTextFile(file, MAX_MANIFEST_MB * MB, '');
  if ('problem' in read) return undefined;
  const { source, issues } = parseYaml(file, read.text);
  const data = source.data;
  if (issues.length > 0 || data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const { name, project } = data as { name?: unknown; project?: unknown };
  if (!validPart(name)) return undefined;
  if (project === undefined) return manifestId(name);
  return validPart(project) ? manifestId(name, project) : undefined;
}

const validPart = (value: unknown): value is string => typeof value === 'string' && value.length <= 100 && NAME_PATTERN.test(value);

/** The manifest as the state knows it: its identity, and the file it was read from this time. */
export interface ManifestKey {
  /** `project/name` or `name` (manifestId); the real path when the file declares none it can be read by. */
  id: string;
  /** The manifest file's real path (manifestRealPath). */
  path: string;
}

/**
 * The key of the manifest at `file` without loading it: its declared identity, or — when it is gone
 * or declares none that can be read — its real path, so the rows an older reelpipe keyed by that
 * path are still found (its runs, logs and lock stay reachable when it no longer loads).
 */
export async function manifestKeyOf(file: string, cwd: string): Promise<ManifestKey> {
  const real = await manifestRealPath(file, cwd);
  return { id: (await readManifestId(real)) ?? real, path: real };
}
