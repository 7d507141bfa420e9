import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { describe, expect, test } from 'vitest';
import { CLI, REPO_ROOT, runCli } from '../../helpers/cli.js';
import { AUTH } from '../helpers.js';

/** Starts `reelpipe sandbox` with `args` and resolves with the child and its URL once it listens. */
async function startChild(args: string[]): Promise<{ child: ResultPromise; url: string }> {
  const child = execa('node', [CLI, 'sandbox', '--port', '0', ...args], { cwd: REPO_ROOT, reject: false });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim().split(' ').pop()!);
    });
    child.once('exit', () => reject(new Error(`exited before listening: ${out}`)));
  });
  return { child, url };
}

/** `reelpipe sandbox --journal` as a user runs it, killed the hard way (needs `npm run build`). */
describe('reelpipe sandbox --journal', () => {
  test('a job answered before a SIGKILL is still there after a restart on the same journal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reelpipe-journal-cli-'));
    const journal = join(dir, 'service.jsonl');
    const a = await startChild(['--journal', journal, '--credits', '50']);
    const created = await fetch(`${a.url}/api/ai_shorts/`, {
      method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ aspect_ratio: '9x16', script: 'Survives a kill.', style: '3D' }),
    });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { id: string; script: string };
    a.child.kill('SIGKILL');
    expect((await a.child).signal).toBe('SIGKILL');

    const b = await startChild(['--journal', journal, '--credits', '999']);
    try {
      const read = await fetch(`${b.url}/api/ai_shorts/${job.id}/`, { headers: AUTH });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ id: job.id, script: 'Survives a kill.' });
      const credits = await fetch(`${b.url}/api/remaining_credits/`, { headers: AUTH });
      expect(await credits.json()).toEqual({ remaining_credits: 45 }); // the journal's 50 less 5, not --credits 999
    } finally {
      b.child.kill('SIGTERM');
    }
    expect((await b.child).exitCode).toBe(0);
  });

  test('a damaged journal is refused with exit 2, naming file and line, before anything listens', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'reelpipe-journal-cli-')), 'service.jsonl');
    writeFileSync(journal, 'not a header\n');
    const result = await runCli(['sandbox', '--journal', journal]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${journal}:1  `);
    expect(result.stdout).toBe('');
  });
});
