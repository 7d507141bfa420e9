import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { STARTER_FILES } from '../../src/init/starter-files.js';
import { readManifestId } from '../../src/manifest/index.js';
import { acquireLock, openStateDb, openStore } from '../../src/state/index.js';
import { CLI, runCli } from '../helpers/cli.js';
import { countStatuses, openProject, STORES, TIME_SCALE, type Project } from './harness.js';

let project: Project | undefined;
const folders: string[] = [];
afterEach(async () => {
  await project?.close();
  project = undefined;
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SHORTS = `
version: 1
name: shorts
outputs: out
steps:
  - id: shorts
    kind: ai_short
    matrix: { sku: [TR2-BLK, TR2-RED] }
    name: "{{ matrix.sku }}"
    with: { script: "Run further in {{ matrix.sku }}.", style: 3D, aspect_ratio: 9x16 }
`;
const fast = ['--time-scale', TIME_SCALE];

describe('reelpipe catalogue', () => {
  test('styles, against the sandbox: every style listed is one the sandbox accepts in style_ids', async () => {
    project = await openProject();
    const result = await project.cli(['catalogue', 'styles', '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout) as { catalogue: string; source: string; listed: boolean; items: { id: string }[] };
    expect([listed.catalogue, listed.source, listed.listed]).toEqual(['styles', project.sandbox.url, true]);
    expect(listed.items.length).toBeGreaterThan(0);
    const client = createClient({ baseUrl: project.sandbox.url, apiId: 'id', apiKey: 'key' });
    try {
      const link = await client.links.createWithParams({ title: 'Trail Runner', image_urls: ['https://example.com/tr.jpg'] });
      const ids = listed.items.map((style) => style.id);
      // The service takes at most 20 styles per job.
      for (let i = 0; i < ids.length; i += 20) await client.htmlAds.create({ link: link.id, style_ids: ids.slice(i, i + 20) });
      const created = project.sandbox.jobs().filter((job) => job.kind === 'html_ads');
      expect(created.flatMap((job) => (job.body as { style_ids: string[] }).style_ids)).toEqual(ids);
    } finally {
      await client.close();
    }
  });

  test('styles as a table names the fixed AI Short styles too', async () => {
    project = await openProject();
    const result = await project.cli(['catalogue', 'styles']);
    expect(result.stdout.split('\n')[0]).toBe(`styles from ${project.sandbox.url} — for html_ads style_ids: 24`);
    expect(result.stdout).toMatch(/^ {2}scratch-card +Scratch Card +game +yes$/m);
    expect(result.stdout).toMatch(/^note: ai_short style: 4K realistic, 3D, Cinematic/m);
  });

  test.each([
    ['models', /^ {2}sandbox-image-v1 +text_to_image +prompt +negative_prompt, seed, style$/m],
    ['templates', /^ {2}vid_2b81e4d0 +Countdown offer +1x1 +offer \(text\), deadline \(text\), hero_video \(video\)$/m],
    ['musics', /^musics from .* — for music steps \(category, search\) and background_music_url: 48$/m],
  ])('%s lists what the sandbox offers', async (name, line) => {
    project = await openProject();
    const result = await project.cli(['catalogue', name]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(line);
  });

  test.each(['voices', 'avatars'])('%s: the service has no list, said plainly, and nothing is asked of it', async (name) => {
    project = await openProject();
    const result = await project.cli(['catalogue', name, '--json']);
    expect(result.exitCode).toBe(0);
    const answer = JSON.parse(result.stdout) as { listed: boolean; items: unknown[]; notes: string[] };
    expect([answer.listed, answer.items]).toEqual([false, []]);
    expect(answer.notes[0]).toMatch(new RegExp(`^the service has no operation that lists ${name}`));
    expect(project.sandbox.stats().requests).toEqual({});
  });

  test('--sandbox needs no credentials: avatars shows the fixture avatars and their voices, read from it', async () => {
    const result = await runCli(['catalogue', 'avatars', '--sandbox'], { env: { PATH: process.env.PATH } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ {2}5eed0000-0000-4000-8000-000000000101 +Robin Fixture +done +5eed0000-0000-4000-8000-000000000201$/m);
  });

  test('without --sandbox or credentials: exit 2 naming the variable', async () => {
    const result = await runCli(['catalogue', 'styles'], { env: { PATH: process.env.PATH } });
    expect([result.exitCode, result.stderr.split(':')[1]?.trim()]).toEqual([2, 'REELPIPE_API_ID is not set']);
  });
});

describe.each(STORES)('on %s', (kind) => {
  describe('reelpipe unlock', () => {
    test('shows the holder and leaves the lock without --force (exit 2); with --force breaks it and says so', async () => {
      project = await openProject({ store: kind });
      project.write('m.yaml', SHORTS);
      const store = await openStore(project.state);
      const runId = await store.useManifest('shorts').startRun('build-7', 4242, null);
      await acquireLock(store, { name: 'shorts', host: 'build-7', pid: 4242 });
      await store.close();

      const shown = await project.cli(['unlock', 'm.yaml']);
      expect(shown.exitCode).toBe(2);
      expect(shown.stdout).toMatch(new RegExp(`^ {2}held by {4}run ${runId}, pid 4242 on build-7$`, 'm'));
      expect(shown.stdout).toMatch(/^ {2}heartbeat {2}\d+s ago$/m);
      expect(shown.stdout).toMatch(/^ {2}process {4}cannot be checked from here \(another host\)$/m);
      expect(shown.stderr).toBe('reelpipe: the lock was left as it is: add --force to break it');
      expect(await project.rows('SELECT name FROM locks')).toHaveLength(1);

      const forced = await project.cli(['unlock', 'm.yaml', '--force']);
      expect(forced.exitCode, forced.stderr).toBe(0);
      expect(forced.stdout).toMatch(/^lock broken \(recorded as lock:forced\)/m);
      expect(await project.rows('SELECT name FROM locks')).toEqual([]);
      expect(await project.rows<{ n: number }>("SELECT count(*) AS n FROM events WHERE type = 'lock:forced'")).toEqual([{ n: 1 }]);
      const run = await project.cli(['run', 'm.yaml', ...fast]);
      expect(run.exitCode, run.stderr).toBe(0);
    });
  });

  describe('reelpipe forget', () => {
    test('drops a finished job by label, says it will be paid again, and the next run makes it again', async () => {
      project = await openProject({ store: kind });
      project.write('m.yaml', SHORTS);
      expect((await project.cli(['run', 'm.yaml', ...fast])).exitCode).toBe(0);
      const result = await project.cli(['forget', 'm.yaml', 'TR2-RED']);
      expect(result.exitCode, result.stderr).toBe(0);
      // In the words every view uses: the database's `downloaded` is the state `done`; credits are `used`.
      expect(result.stdout).toMatch(/^forgot TR2-RED \(shorts:[0-9a-f]{12}\): it was done, remote id [0-9a-f-]{36}, 5 credits used$/m);
      expect(result.stdout).toMatch(/^the next run plans it again as new and submits it: it will be paid for again \(about 5 credits\)$/m);
      expect(result.stdout).toMatch(/^its 5 credits stay counted in every total and against budget\.max_credits, as spent on a forgotten job$/m);
      expect(await countStatuses(project)).toEqual({ downloaded: 1 });
      const again = await project.cli(['run', 'm.yaml', ...fast]);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(project.sandbox.stats().created).toEqual({ ai_short: 3 });
      // Paid twice, on purpose: both payments stay in every figure, the forgotten one said apart.
      const { totals } = JSON.parse((await project.cli(['status', 'm.yaml', '--json'])).stdout) as { totals: { creditsUsed: number; creditsApart: { forgotten: number } } };
      expect(totals).toMatchObject({ creditsUsed: project.sandbox.stats().credits.charged, creditsApart: { forgotten: 5 } });
    });

    test.each([
      ['submitted', 'let a run finish it: `reelpipe run m.yaml`'],
      ['in_doubt', 'settle it first: `reelpipe doubt m.yaml`, then `reelpipe resolve`'],
    ])('a job %s is refused (exit 2) and kept', async (status, next) => {
      project = await openProject({ store: kind });
      project.write('m.yaml', SHORTS);
      expect((await project.cli(['run', 'm.yaml', ...fast])).exitCode).toBe(0);
      const [row] = await project.rows<{ key: string }>('SELECT key FROM jobs ORDER BY key LIMIT 1');
      await project.execute('UPDATE jobs SET status = ? WHERE key = ?', status, row!.key);
      const result = await project.cli(['forget', 'm.yaml', row!.key]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`it exists at the service (or may), and forgetting it would lose track of a job that is paid for; ${next}`);
      expect(await project.rows('SELECT key FROM jobs WHERE key = ?', row!.key)).toHaveLength(1);
    });

    test('refused (exit 75) while a run holds the manifest', async () => {
      project = await openProject({ store: kind });
      const manifest = project.write('m.yaml', SHORTS);
      expect((await project.cli(['run', 'm.yaml', ...fast])).exitCode).toBe(0);
      const store = await openStore(project.state);
      const lock = await acquireLock(store, { name: (await readManifestId(manifest))! });
      try {
        const result = await project.cli(['forget', 'm.yaml', 'TR2-RED']);
        expect(result.exitCode).toBe(75);
        expect(await countStatuses(project)).toEqual({ downloaded: 2 });
      } finally {
        await lock.release();
        await store.close();
      }
    });

    test('a job given by key is named by its label too, and its state in the vocabulary\'s words (the database\'s done is finished)', async () => {
      project = await openProject({ store: kind });
      project.write('m.yaml', SHORTS);
      expect((await project.cli(['run', 'm.yaml', ...fast])).exitCode).toBe(0);
      const [row] = await project.rows<{ key: string }>("SELECT key FROM jobs WHERE output_name = 'TR2-BLK'");
      await project.execute("UPDATE jobs SET status = 'done' WHERE key = ?", row!.key);
      const result = await project.cli(['forget', 'm.yaml', row!.key]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout.split('\n')[0]).toMatch(new RegExp(`^forgot TR2-BLK \\(${row!.key}\\): it was finished, `));
    });

    test('an unknown job is a usage error', async () => {
      project = await openProject({ store: kind });
      project.write('m.yaml', SHORTS);
      expect((await project.cli(['run', 'm.yaml', ...fast])).exitCode).toBe(0);
      const result = await project.cli(['forget', 'm.yaml', 'TR2-GRN']);
      expect([result.exitCode, result.stderr]).toEqual([2, 'reelpipe: TR2-GRN: no such job; give a key or a label of this manifest, as `reelpipe status` shows them']);
    });
  });
});

describe('reelpipe unlock, before any state', () => {
  test('no lock: says so, exit 0, and creates no state database', async () => {
    project = await openProject();
    project.write('m.yaml', SHORTS);
    const result = await project.cli(['unlock', 'm.yaml']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^no lock on shorts: there is no state database at /);
    expect(existsSync(join(project.dir, 'state'))).toBe(false);
  });
});

describe('reelpipe resolve', () => {
  test('adopting a job finished at creation says it is finished, the word every view uses (not the database\'s done)', async () => {
    project = await openProject();
    project.write('link.yaml', `
version: 1
name: link
outputs: out-link
steps:
  - id: product
    kind: link_with_params
    download: false
    with: { title: Trail Runner 2, image_urls: [https://example.com/tr2.jpg] }
`);
    expect((await project.cli(['run', 'link.yaml', ...fast])).exitCode).toBe(0);
    // As if its POST's answer had been lost: held in doubt, the id it made known to nobody.
    const [row] = project.query<{ key: string; remote_id: string }>('SELECT key, remote_id FROM jobs');
    const db = openStateDb(join(project.dir, 'state', 'reelpipe.db'));
    db.prepare("UPDATE jobs SET status = 'in_doubt', remote_id = NULL WHERE key = ?").run(row!.key);
    db.close();
    const adopted = await project.cli(['resolve', 'link.yaml', 'product', '--adopt', row!.remote_id]);
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    expect(adopted.stdout).toBe(`product (${row!.key}): adopted ${row!.remote_id} (finished); the next run downloads its outputs, paying nothing more`);
  });
});

describe('reelpipe init', () => {
  test('writes a starter that validates and runs on the sandbox to exit 0; never overwrites', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reelpipe-init-'));
    folders.push(dir);
    const init = await runCli(['init'], { cwd: dir });
    expect(init.exitCode, init.stderr).toBe(0);
    for (const file of STARTER_FILES) expect(readFileSync(join(dir, file.path), 'utf8')).toBe(file.text);
    // Called as `node …/bin/reelpipe.js` from a folder outside the clone: its next steps say the same.
    expect(init.stdout).toContain(`next: node ${CLI} validate pipelines/starter.yaml\n      node ${CLI} run pipelines/starter.yaml --sandbox`);

    const validate = await runCli(['validate', 'pipelines/starter.yaml'], { cwd: dir });
    expect([validate.exitCode, validate.stdout]).toEqual([0, 'OK pipelines/starter.yaml: starter, 4 steps, 5 jobs']);
    const run = await runCli(['run', 'pipelines/starter.yaml', '--sandbox'], { cwd: dir, timeout: 60_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^starter: 5 jobs — 5 done$/m);

    writeFileSync(join(dir, 'pipelines/starter.csv'), 'sku,script\nMINE,"my own rows"\n');
    const again = await runCli(['init'], { cwd: dir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/pipelines\/starter\.yaml and pipelines\/starter\.csv already exist .*: nothing was written/);
    expect(readFileSync(join(dir, 'pipelines/starter.csv'), 'utf8')).toBe('sku,script\nMINE,"my own rows"\n');
  });

  test.each([
    ['found on the PATH (a global install, npm link)', 'reelpipe'],
    ['in the node_modules of the project it runs in', 'npx reelpipe'],
  ])('its next steps name the CLI as it was called: %s → %s', async (how, expected) => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'reelpipe-init-')));
    folders.push(dir);
    const bin = join(dir, how.startsWith('found') ? 'bin' : 'node_modules/.bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(CLI, join(bin, 'reelpipe'));
    const init = how.startsWith('found')
      ? await execa('reelpipe', ['init'], { cwd: dir, reject: false, env: { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` } })
      : await execa('node', [join(bin, 'reelpipe'), 'init'], { cwd: dir, reject: false });
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).toContain(`next: ${expected} validate pipelines/starter.yaml\n      ${expected} run pipelines/starter.yaml --sandbox`);
  });
});
