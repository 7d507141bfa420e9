import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TIME_SCALE, openProject, statusCounts, verifyOutputs, type Project } from '../e2e/harness.js';

/** A re-run checks every recorded output's content, not only its size: through the real CLI on the sandbox. */
const MANIFEST = `
version: 1
name: talks
outputs: out
concurrency: 5
steps:
  - id: talk
    kind: lipsync_v2
    for_each:
      rows: [{ t: "One, the trail." }, { t: "Two, the river." }, { t: "Three, the summit." }, { t: "Four, the ridge." }, { t: "Five, home." }]
    name: "talk-{{ row.t }}"
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5eed0000-0000-4000-8000-000000000101 }
          voice: { type: text, input_text: "{{ row.t }}" }
`;

let project: Project;
beforeAll(async () => {
  project = await openProject();
  project.write('talks.yaml', MANIFEST);
});
afterAll(() => project.close());

describe('re-running a finished manifest', () => {
  test('five outputs with one byte flipped (same size) are fetched again, never resubmitted; exit 0', async () => {
    const first = await project.cli(['run', 'talks.yaml', '--time-scale', TIME_SCALE]);
    expect(first.exitCode, first.stderr).toBe(0);
    const outputs = join(project.dir, 'out');
    const paths = project.query<{ path: string }>('SELECT path FROM outputs ORDER BY path').map((r) => join(outputs, r.path));
    expect(paths).toHaveLength(5);
    for (const path of paths) {
      const data = readFileSync(path);
      data[data.length >> 1] = data[data.length >> 1]! ^ 0xff;
      writeFileSync(path, data);
    }
    expect(verifyOutputs(project, outputs).mismatches).toHaveLength(5);

    const again = await project.cli(['run', 'talks.yaml', '--time-scale', TIME_SCALE]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(verifyOutputs(project, outputs)).toEqual({ files: 5, mismatches: [] });
    expect(statusCounts(project)).toEqual({ downloaded: 5 });
    expect(project.sandbox.stats().created.lipsync_v2).toBe(5);
  });

  test('an untouched re-run keeps every output, each with its mtime recorded to the nanosecond', async () => {
    const before = project.query<{ mtime_ns: string }>('SELECT mtime_ns FROM outputs ORDER BY path');
    const run = await project.cli(['run', 'talks.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(project.query<{ mtime_ns: string }>('SELECT mtime_ns FROM outputs ORDER BY path')).toEqual(before);
    expect(before.every((r) => /^\d{19}$/.test(r.mtime_ns))).toBe(true);
  });
});
