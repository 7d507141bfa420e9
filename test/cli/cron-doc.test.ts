import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { REPO_ROOT } from '../helpers/cli.js';

const DOC = readFileSync(join(REPO_ROOT, 'docs/cron.md'), 'utf8');

/** The doc's ```ini blocks whose first line names a unit file: `# /etc/systemd/system/NAME`. */
const UNITS = [...DOC.matchAll(/```ini\n# \/etc\/systemd\/system\/(\S+)\n([\s\S]*?)```/g)].map((m) => ({ name: m[1]!, text: m[2]! }));

/** Whether systemd-analyze is on this machine (CI does not install systemd for this): without it the verify test shows as skipped. */
const systemdAnalyze = await execa('systemd-analyze', ['--version'], { reject: false }).then((r) => r.exitCode === 0, () => false);

describe('docs/cron.md', () => {
  test('has the service, its timer and the alert unit', () => {
    expect(UNITS.map((u) => u.name)).toEqual(['reelpipe-nightly.service', 'reelpipe-nightly.timer', 'reelpipe-alert@.service']);
  });

  test.runIf(systemdAnalyze)('its systemd units pass systemd-analyze verify', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reelpipe-units-'));
    try {
      for (const unit of UNITS) writeFileSync(join(dir, unit.name), unit.text);
      const result = await execa('systemd-analyze', ['verify', '--man=no', ...UNITS.map((u) => join(dir, u.name))], { reject: false });
      // Every complaint about a unit names its file or the unit; lines about the machine itself are not the doc's.
      const ours = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.includes(dir) || UNITS.some((u) => line.includes(u.name)));
      expect(ours).toEqual([]);
      expect(result.exitCode, result.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('its exit-code table lists every code the CLI can exit with, and no other', () => {
    const table = [...DOC.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(table.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });
});
