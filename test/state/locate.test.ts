import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { resolveStatePath, standaloneStateFile, type SandboxRuns } from '../../src/state/locate.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-locate-'));
  writeFileSync(join(dir, 'package.json'), '{}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each([
  ['the real service', false, 'reelpipe.db'],
  ['the embedded sandbox', true, 'sandbox.db'],
  ['a standalone sandbox', { url: 'http://127.0.0.1:7711' }, 'sandbox-127.0.0.1-7711.db'],
  ['another standalone sandbox', { url: 'http://127.0.0.1:7712' }, 'sandbox-127.0.0.1-7712.db'],
] as [string, SandboxRuns, string][])("%s's runs keep their state in state/%s of the manifest's project", (_name, sandbox, file) => {
  expect(resolveStatePath(join(dir, 'pipelines', 'night.yaml'), { cwd: '/', sandbox })).toBe(join(dir, 'state', file));
});

test('--state wins over every default', () => {
  expect(resolveStatePath(join(dir, 'night.yaml'), { cwd: dir, statePath: 'trial.db', sandbox: { url: 'http://127.0.0.1:7711' } })).toBe(join(dir, 'trial.db'));
});

test.each([
  ['http://127.0.0.1:7711', 'sandbox-127.0.0.1-7711.db'],
  ['http://localhost', 'sandbox-localhost-80.db'],
  ['https://rehearsal.example.com', 'sandbox-rehearsal.example.com-443.db'],
  ['http://[::1]:7711', 'sandbox-__1-7711.db'],
])('a standalone sandbox at %s keeps its runs in %s', (url, file) => {
  expect(standaloneStateFile(url)).toBe(file);
});

test('--state with a PostgreSQL address is carried without its password; another scheme is refused, naming what it takes', () => {
  const where = (statePath: string) => () => resolveStatePath(join(dir, 'night.yaml'), { cwd: dir, statePath });
  expect(where('postgres://reelpipe:s3cret@db.example.com:5433/reelpipe?sslmode=require')()).toBe('postgres://reelpipe@db.example.com:5433/reelpipe');
  expect(where('postgresql://db/reelpipe')()).toBe('postgres://db:5432/reelpipe');
  expect(where('mysql://reelpipe:s3cret@db.example.com/reelpipe')).toThrow(/--state mysql:\/\/…: a state is an SQLite file's path or a PostgreSQL address/);
  expect(() => where('mysql://reelpipe:s3cret@db.example.com/reelpipe')()).not.toThrow(/s3cret/);
  // A malformed address: exit 2 (a usage error), saying what is accepted, never the password.
  expect(where('postgres://reelpipe:s3cret@db.example.com:99999/reelpipe')).toThrow(/a PostgreSQL state address was given, but it is not a URL.*Accepted: postgres:\/\/USER@HOST:PORT\/DATABASE/);
  expect(where('postgres://reelpipe:s3cret@db.example.com/')).toThrow(UsageError);
  expect(() => where('postgres://reelpipe:s3cret@db.example.com/')()).not.toThrow(/s3cret/);
  expect(where('postgres://db/reelpipe?password=x')).toThrow(/parameter "password" is not one of/);
  // A path that merely contains a colon is still a path.
  expect(where('state/a:b.db')()).toBe(join(dir, 'state', 'a:b.db'));
});
