import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateMismatchError } from '../errors.js';
import { shownLocation } from './postgres/pg-url.js';
import { RUN_FILE_PREFIX } from './run-folder.js';

/** The file in an outputs folder naming the state database that owns it. */
export const OWNER_FILE = '.reelpipe-state.json';

/** Entries an outputs folder may hold that say nothing about earlier runs. */
const NOT_OUTPUTS = new Set([OWNER_FILE, 'report']);
/**
 * Not outputs: reelpipe's own records, the report, and an owner record being written (a member
 * starting beside another sees its `.part` for a moment: it says nothing about earlier runs).
 */
const notOutput = (name: string) => NOT_OUTPUTS.has(name) || name.startsWith(RUN_FILE_PREFIX) || name.startsWith(`.${OWNER_FILE}.`);

/**
 * The owner record: the state's id, where the state is — an SQLite file's path, or a database's
 * address without its password (shownLocation) — and the identity of the manifest that filled the
 * folder (`project/name`: manifest/identity.ts), never its path: the same manifest from another
 * checkout fills the same folder.
 */
interface OwnerRecord {
  stateId: string;
  state: string;
  identity: string;
}

/** As an older reelpipe wrote it (still read): the state's path and the manifest's real path. */
interface OlderOwnerRecord {
  stateId: string;
  statePath: string;
  manifest: string;
}

/** The state database a run is about to use, as the ownership check needs it. */
export interface StateIdentity {
  id: string;
  path: string;
  /** When the database was made (its first migration). */
  createdAt: string;
  /** Jobs of this manifest the database knows. */
  jobsKnown: number;
}

/**
 * Checks that `outputsDir` belongs to this state database, and claims it when nobody does.
 *
 * Policy: the state database is the only record of what was paid for; its outputs folder is the
 * visible trace of that spending. A folder filled under another database (the manifest run from
 * another directory with a --state of its own, or a database deleted, emptied or replaced) means
 * this database does not know those jobs — running would pay for every one again and overwrite
 * the files. So it is refused (exit 2) with both named and the way out, before anything is sent:
 *   - folder owned by this database            → go on
 *   - folder owned by another database         → refuse, naming both
 *   - no owner, but files from earlier runs and
 *     a database that knows no job of the manifest → refuse (an older reelpipe's folder, or a lost state)
 *   - no owner otherwise                        → claim it
 */
export function claimOutputs(outputsDir: string, identity: string, state: StateIdentity): void {
  if (checkOutputs(outputsDir, state) === 'owned') return;
  mkdirSync(outputsDir, { recursive: true });
  const record: OwnerRecord = { stateId: state.id, state: shownLocation(state.path), identity };
  const temp = join(outputsDir, `.${OWNER_FILE}.${process.pid}.part`);
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(temp, join(outputsDir, OWNER_FILE));
}

/**
 * The verdict of claimOutputs without claiming anything: `owned` by this database, `unclaimed`
 * (a run would claim it), or a StateMismatchError. `plan` gives it so that it never shows as "not
 * submitted" what `run` would refuse to pay for again; it writes nothing.
 */
export function checkOutputs(outputsDir: string, state: StateIdentity): 'owned' | 'unclaimed' {
  const owner = readOwner(outputsDir);
  if (owner?.stateId === state.id) return 'owned';
  if (owner) throw new StateMismatchError(mismatch(outputsDir, owner, state));
  const earlier = entries(outputsDir).filter((name) => !notOutput(name));
  if (earlier.length > 0 && state.jobsKnown === 0) {
    throw new StateMismatchError(
      `${outputsDir} holds files from earlier runs (${earlier.slice(0, 3).join(', ')}${earlier.length > 3 ? ', …' : ''}), ` +
        `but the state database ${state.path} knows no job of this manifest: running would make and pay for every job again. ` +
        'Use the state database those runs used (--state PATH), or move the outputs folder away to start over.',
    );
  }
  return 'unclaimed';
}

function mismatch(outputsDir: string, owner: { state: string }, state: StateIdentity): string {
  if (owner.state === shownLocation(state.path)) {
    return (
      `the state database ${state.path} is not the one that filled ${outputsDir}: ` +
      `${state.jobsKnown === 0 ? 'it knows no job of this manifest' : `it was made ${state.createdAt}`}, ` +
      'so the earlier one was deleted, emptied or replaced, and with it the record of what was paid for. ' +
      `Restore it from a backup; or, to make and pay for every job again, move ${outputsDir} away.`
    );
  }
  return (
    `${outputsDir} belongs to the state database ${owner.state}, but this command uses ${shownLocation(state.path)}: ` +
    `running would pay again for jobs that database knows. Pass --state ${owner.state}, ` +
    `or, if that database is gone for good, move ${outputsDir} away to start over.`
  );
}

/** The owner's id and where its state is, from a record of either form; undefined when the folder has none. */
function readOwner(outputsDir: string): { stateId: string; state: string } | undefined {
  let text: string;
  try {
    text = readFileSync(join(outputsDir, OWNER_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const record = JSON.parse(text) as Partial<OwnerRecord & OlderOwnerRecord>;
    const state = typeof record.state === 'string' ? record.state : record.statePath;
    if (typeof record.stateId === 'string' && typeof state === 'string') return { stateId: record.stateId, state };
  } catch {
    // fall through: an unreadable owner file is not an owner, but it is not nothing either
  }
  throw new StateMismatchError(`${join(outputsDir, OWNER_FILE)} is not readable as reelpipe's owner record; restore it or move ${outputsDir} away`);
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
