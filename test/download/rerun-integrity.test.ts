import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
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

  test('an untouched re-run keeps every output, each with its stat stamp (size, mtime and ctime to the nanosecond)', async () => {
    const before = project.query<{ stat_stamp: string }>('SELECT stat_stamp FROM outputs ORDER BY path');
    const run = await project.cli(['run', 'talks.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(project.query<{ stat_stamp: string }>('SELECT stat_stamp FROM outputs ORDER BY path')).toEqual(before);
    expect(before.every((r) => /^\d+:\d{19}:\d{19}$/.test(r.stat_stamp))).toBe(true);
  });

  test('one byte flipped with its mtime put back (utimes, as touch -d does) is caught by its ctime and fetched again', async () => {
    const outputs = join(project.dir, 'out');
    const [path] = project.query<{ path: string }>('SELECT path FROM outputs ORDER BY path').map((r) => join(outputs, r.path));
    // A whole second, so putting it back restores the recorded mtime exactly (to the nanosecond).
    const when = new Date(Date.UTC(2030, 0, 1));
    utimesSync(path!, when, when);
    expect((await project.cli(['run', 'talks.yaml', '--time-scale', TIME_SCALE])).exitCode).toBe(0);

    const data = readFileSync(path!);
    data[data.length >> 1] = data[data.length >> 1]! ^ 0xff;
    writeFileSync(path!, data);
    utimesSync(path!, when, when);
    expect(statSync(path!, { bigint: true }).mtimeNs).toBe(BigInt(when.getTime()) * 1_000_000n);
    expect(verifyOutputs(project, outputs).mismatches).toHaveLength(1);

    const again = await project.cli(['run', 'talks.yaml', '--time-scale', TIME_SCALE]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(verifyOutputs(project, outputs)).toEqual({ files: 5, mismatches: [] });
    expect(statusCounts(project)).toEqual({ downloaded: 5 });
    expect(project.sandbox.stats().created.lipsync_v2).toBe(5);
  });
});
