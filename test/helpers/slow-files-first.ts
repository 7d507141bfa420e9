import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in: the longest first, by the durations a whole run measured
 * (file-durations.json), so the long end-to-end and PostgreSQL files do not start last and
 * make the tail of a run on a clean clone.
 *
 * Why not vitest's own order: it orders by the durations of its last run on this machine, and a
 * clean clone (CI) has none, so it falls back to file size, which started a 55 s file last.
 * Where this machine has that cache for every file, vitest's order stands (BaseSequencer).
 * Files the list does not know run first (new files are unknown, and vitest does the same).
 *
 * Refresh the list after a whole run:
 *   npx vitest run --reporter=json --outputFile.json=/tmp/durations.json
 *   node test/helpers/write-durations.js /tmp/durations.json
 */
const measured: Record<string, number> = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'));

export default class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification) => measured[relative(root, spec.moduleId)] ?? Number.MAX_SAFE_INTEGER;
    const cached = files.every((spec) => this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`));
    if (cached) return super.sort(files);
    return [...files].sort((a, b) => known(b) - known(a));
  }
}
