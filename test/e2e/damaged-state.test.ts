import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { openProject, TIME_SCALE, type Project } from './harness.js';

const SHORTS = `
version: 1
name: spring
outputs: out/spring
steps:
  - id: shorts
    kind: ai_short
    for_each: { rows: [{ t: "Spring is here." }, { t: "Fresh colours for the season." }] }
    name: "short-{{ row.t }}"
    with: { script: "{{ row.t }}", style: 3D, aspect_ratio: 9x16 }
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** A project whose state database is `bytes` (written before any command runs). */
async function projectWithState(bytes: Buffer): Promise<{ project: Project; db: string }> {
  const p = await openProject();
  p.write('package.json', '{ "name": "shop", "private": true }\n');
  p.write('spring.yaml', SHORTS);
  mkdirSync(join(p.dir, 'state'));
  const db = join(p.dir, 'state', 'reelpipe.db');
  writeFileSync(db, bytes);
  return { project: p, db };
}

const COMMANDS = [
  ['plan', ['plan', 'spring.yaml']],
  ['plan --json', ['plan', 'spring.yaml', '--json']],
  ['status', ['status', 'spring.yaml']],
  ['run', ['run', 'spring.yaml', '--time-scale', TIME_SCALE]],
  ['retry', ['retry', 'spring.yaml', '--time-scale', TIME_SCALE]],
] as const;

describe('a state database that is not one (garbage bytes) is a located local fault, never a crash', () => {
  const garbage = randomBytes(8192);

  test.each(COMMANDS)('%s exits 74 naming the file and the way out; nothing sent, the file untouched', async (_name, args) => {
    ({ project } = await projectWithState(garbage));
    const db = join(project.dir, 'state', 'reelpipe.db');
    const result = await project.cli([...args]);
    expect(result.exitCode, result.stderr).toBe(74);
    const said = `${result.stderr}${result.stdout}`;
    expect(said).not.toMatch(/internal error|\n\s+at /);
    expect(said).toContain(`the state database ${db} is not a reelpipe state database, or is damaged`);
    expect(said).toMatch(/Nothing was sent and the file was left as it is\. Restore it from a backup, or pass --state/);
    expect(project.sandbox.stats().requests).toEqual({});
    expect(readFileSync(db).equals(garbage)).toBe(true);
    expect(readdirSync(join(project.dir, 'state'))).toEqual(['reelpipe.db']);
  });
});

describe("another program's SQLite database is not taken over", () => {
  test('run refuses it (74) and adds no table to it', async () => {
    const p = await openProject();
    project = p;
    p.write('spring.yaml', SHORTS);
    const db = join(p.dir, 'notes.db');
    const foreign = new Database(db);
    foreign.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');");
    foreign.close();
    const result = await p.cli(['run', 'spring.yaml', '--state', 'notes.db', '--time-scale', TIME_SCALE]);
    expect(result.exitCode, result.stderr).toBe(74);
    expect(result.stderr).toContain(`the state database ${db} is an SQLite database, but not a reelpipe state database (its tables: notes)`);
    expect(p.queryAt<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table'")).toEqual([{ name: 'notes' }]);
    expect(p.sandbox.stats().requests).toEqual({});
  });
});

describe('a state database a newer reelpipe wrote is left to that version', () => {
  test.each(COMMANDS)('%s exits 2 naming the file and both schema versions; nothing sent, nothing written', async (_name, args) => {
    const p = await openProject();
    project = p;
    p.write('package.json', '{ "name": "shop", "private": true }\n');
    p.write('spring.yaml', SHORTS);
    mkdirSync(join(p.dir, 'state'));
    const db = join(p.dir, 'state', 'reelpipe.db');
    const newer = new Database(db);
    newer.exec("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL); INSERT INTO schema_version VALUES (999, 'from the future', 0);");
    newer.close();
    const before = readFileSync(db);
    const result = await p.cli([...args]);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(`${result.stderr}${result.stdout}`).not.toMatch(/internal error|\n\s+at /);
    expect(result.stderr).toMatch(new RegExp(`the state database ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is at schema version 999, written by a newer reelpipe \\(this one knows up to \\d+\\)`));
    expect(p.sandbox.stats().requests).toEqual({});
    expect(readFileSync(db).equals(before)).toBe(true);
  });
});

describe('a state database in a folder that cannot be made (a link to nothing)', () => {
  test('run exits 74 naming the path, not an internal error; nothing sent', async () => {
    const p = (project = await openProject());
    p.write('spring.yaml', SHORTS);
    symlinkSync(join(p.dir, 'gone'), join(p.dir, 'dangling'));
    const refused = await p.cli(['run', 'spring.yaml', '--state', 'dangling/reelpipe.db', '--time-scale', TIME_SCALE]);
    expect(refused.exitCode, refused.stderr).toBe(74);
    expect(refused.stderr).toContain(`a file could not be used: ENOENT: no such file or directory, mkdir '${join(p.dir, 'dangling')}'`);
    expect(refused.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(Object.keys(p.sandbox.stats().requests)).toEqual([]);
  });
});
