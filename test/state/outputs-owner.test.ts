import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StateMismatchError } from '../../src/errors.js';
import { checkOutputs, claimOutputs, OWNER_FILE, type StateIdentity } from '../../src/state/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-owner-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const state = (id: string, path = '/srv/state/reelpipe.db'): StateIdentity => ({ id, path, createdAt: '2026-01-01T00:00:00Z', jobsKnown: 1 });
const record = () => JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as unknown;

describe("the outputs folder's owner record", () => {
  test("names the state and the manifest's identity, never a manifest path", () => {
    claimOutputs(dir, 'shop/nightly', state('s-1'));
    expect(record()).toEqual({ stateId: 's-1', state: '/srv/state/reelpipe.db', identity: 'shop/nightly' });
    expect(checkOutputs(dir, state('s-1'))).toBe('owned');
  });

  test('names a PostgreSQL state by its address without its password', () => {
    claimOutputs(dir, 'nightly', state('s-1', 'postgres://reel:hunter2@db.internal:5432/reelpipe'));
    expect(record()).toEqual({ stateId: 's-1', state: 'postgres://reel@db.internal:5432/reelpipe', identity: 'nightly' });
    expect(readFileSync(join(dir, OWNER_FILE), 'utf8')).not.toContain('hunter2');
  });

  test("another process's owner record being written (its .part) is no earlier run's file: the folder is unclaimed", () => {
    writeFileSync(join(dir, `.${OWNER_FILE}.4242.part`), '{}');
    expect(checkOutputs(dir, { ...state('s-1'), jobsKnown: 0 })).toBe('unclaimed');
  });

  test('an older record (statePath, and the manifest by its path) is still read', () => {
    writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ stateId: 's-1', statePath: '/srv/state/reelpipe.db', manifest: '/srv/app/m.yaml' }));
    expect(checkOutputs(dir, state('s-1'))).toBe('owned');
    expect(() => checkOutputs(dir, state('s-2', '/elsewhere.db'))).toThrow(
      new StateMismatchError(
        `${dir} belongs to the state database /srv/state/reelpipe.db, but this command uses /elsewhere.db: running would pay again for jobs that database knows. ` +
          `Pass --state /srv/state/reelpipe.db, or, if that database is gone for good, move ${dir} away to start over.`,
      ),
    );
    expect(() => checkOutputs(dir, state('s-2'))).toThrow(/the state database \/srv\/state\/reelpipe\.db is not the one that filled/);
  });
});
