import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { onTestFinished } from 'vitest';
import { loadManifest, type Manifest } from '../../../src/manifest/index.js';
import type { InvalidInputError } from '../../../src/errors.js';
import { formatIssue } from '../../../src/errors.js';

/**
 * A temporary folder built from an object literal ({ 'file name': text }), removed when the test
 * finishes. Objects under a `.yaml` name are written as YAML.
 */
export function tempTree(files: Record<string, string | object>): { dir: string; file: (name: string) => string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'reelpipe-manifest-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(dir, name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, typeof content === 'string' ? content : stringify(content));
  }
  return { dir, file: (name) => path.join(dir, name) };
}

/** Loads `manifest.yaml` of a tree, naming files relative to the tree (as a user in it would see them). */
export async function load(files: Record<string, string | object>, env: NodeJS.ProcessEnv = {}): Promise<Manifest> {
  const { dir } = tempTree(files);
  return loadManifest('manifest.yaml', { env, cwd: dir });
}

/** The formatted issues a manifest is rejected with (fails the test if it loads). */
export async function problems(files: Record<string, string | object>, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  try {
    await load(files, env);
  } catch (error) {
    if ((error as InvalidInputError).issues) return (error as InvalidInputError).issues.map(formatIssue);
    throw error;
  }
  throw new Error('expected the manifest to be rejected, but it loaded');
}

/** A minimal valid manifest around the given steps. */
export const manifestWith = (steps: object[], extra: object = {}) => ({ version: 1, name: 'test', ...extra, steps });
