import { afterEach, beforeEach } from 'vitest';
import { jobStatePages, type JobRow, type JobState, type JobStatus, type NewJob, type Store } from '../../../src/state/index.js';
import { ManualClock } from '../../../src/util/clock.js';

/**
 * What the conformance suite stands on: a store under test opened fresh for every test, on a
 * location of its own, and the few moves that bring a job where a test needs it — every one made
 * through the Store's door (src/state/store.ts), never through a store's own tables.
 */

/** A store a driver opened on a fresh location, and how to open that location again and clean it up. */
export interface OpenedStore {
  store: Store;
  /** Where the state lives (what `identity(location)` is asked about). */
  location: string;
  /** Another Store on the same location, on the same clock (the one before may still be open). */
  reopen(): Promise<Store>;
  /** Closes every store it opened and removes the location. */
  cleanup(): Promise<void>;
}

/** A driver's factory: a fresh, empty state on `clock`. */
export type OpenStore = (clock: ManualClock) => Promise<OpenedStore>;

/** The manifest every test's jobs belong to, unless it says otherwise. */
export const MANIFEST = 'conformance.yaml';

/** The store under test, as each test sees it. */
export interface Subject {
  readonly store: Store;
  readonly clock: ManualClock;
  readonly location: string;
  /** Closes the store under test and opens its location again: the new store is `store` from now on. */
  restart(): Promise<Store>;
  /** Another store on the same location, the store under test left open (what another process sees). */
  beside(): Promise<Store>;
  /** A second, unrelated state on a fresh location (cleaned up with the test). */
  elsewhere(): Promise<OpenedStore>;
}

/** Opens a fresh store before each test of the enclosing describe, and cleans it up after. */
export function subjectOf(open: OpenStore): Subject {
  let opened: OpenedStore | undefined;
  let current: Store | undefined;
  let clock = new ManualClock();
  const others: OpenedStore[] = [];
  beforeEach(async () => {
    clock = new ManualClock();
    opened = await open(clock);
    current = opened.store;
  });
  afterEach(async () => {
    for (const other of others.splice(0)) await other.cleanup();
    await opened?.cleanup();
    opened = undefined;
    current = undefined;
  });
  const live = (): OpenedStore => {
    if (!opened) throw new Error('no store is open: the subject is used outside a test');
    return opened;
  };
  return {
    get store() {
      if (!current) throw new Error('no store is open: the subject is used outside a test');
      return current;
    },
    get clock() {
      return clock;
    },
    get location() {
      return live().location;
    },
    async restart() {
      await current?.close();
      // A store opened anew is scoped to no manifest yet (useManifest: no I/O).
      current = (await live().reopen()).useManifest(MANIFEST);
      return current;
    },
    async beside() {
      return (await live().reopen()).useManifest(MANIFEST);
    },
    async elsewhere() {
      const other = await open(clock);
      others.push(other);
      return other;
    },
  };
}

/** A job of the plan: an AI short whose output name is its key. */
export function newJob(key: string, extra: Partial<NewJob> = {}): NewJob {
  return { key, step: 'shorts', kind: 'ai_short', outputName: key, request: { script: `script ${key}` }, creditsEstimated: 5, ...extra };
}

/** Where a job stands in the plan, as `money` is asked about it. */
export const placeOf = (job: NewJob) => ({ key: job.key, step: job.step, outputName: job.outputName ?? null });

/** The remote id the service answers a job's creation with, in these tests. */
export const remoteIdOf = (key: string) => `remote-${key}`;

/** The request a job's intent sends (its planned one, resolved). */
export const sentRequest = (key: string) => ({ script: `sent ${key}` });

/** A file as downloaded for output `idx` of `key`. */
export const fileOf = (key: string, idx: number) => ({
  path: `${key}/${idx}.mp4`,
  bytes: 1000 + idx,
  sha256: `sha-${key}-${idx}`,
  contentType: 'video/mp4',
  statStamp: `stamp-${key}-${idx}`,
});

/** The statuses a job passes through from `planned` to reach each status (the machine of job-status.ts). */
const PATHS: Record<JobStatus, readonly JobStatus[]> = {
  planned: [],
  submitting: ['submitting'],
  in_doubt: ['submitting', 'in_doubt'],
  submitted: ['submitting', 'submitted'],
  running: ['submitting', 'submitted', 'running'],
  done: ['submitting', 'submitted', 'done'],
  failed: ['submitting', 'submitted', 'failed'],
  rejected: ['submitting', 'submitted', 'rejected'],
  downloaded: ['submitting', 'submitted', 'done', 'downloaded'],
  hook_failed: ['submitting', 'submitted', 'done', 'downloaded', 'hook_failed'],
  partly_failed: ['submitting', 'submitted', 'done', 'partly_failed'],
};

export interface BringOptions {
  /** The credits its intent reserves. @default 5 */
  reserved?: number;
  /** What the service says the remote job cost when it ends (done, failed, rejected). @default 5 */
  creditsUsed?: number | null;
  /** The token of its intent's webhook address. @default null */
  hookToken?: string | null;
  /** Where the job is already (its intent made by the test, say): only the moves after it are made. @default 'planned' */
  from?: JobStatus;
}

/** Brings a planned job to `to` the way a run does, one operation per move; resolves with its row there. */
export async function bring(store: Store, key: string, to: JobStatus, options: BringOptions = {}): Promise<JobRow> {
  const creditsUsed = options.creditsUsed === undefined ? 5 : options.creditsUsed;
  const now = () => store.clock.now();
  const path = PATHS[to];
  for (const status of path.slice(options.from === undefined ? 0 : path.indexOf(options.from) + 1)) {
    switch (status) {
      case 'submitting':
        await store.recordIntent({ key, request: sentRequest(key), hookToken: options.hookToken ?? null, pathId: null, creditsReserved: options.reserved ?? 5 });
        break;
      case 'submitted':
        await store.write({
          key,
          attempt: { id: 'open intent', state: 'answered', remoteId: remoteIdOf(key) },
          move: { to: 'submitted', change: { remoteId: remoteIdOf(key), submittedAt: now() }, type: 'job:answered' },
          durable: true,
        });
        break;
      case 'in_doubt':
        await store.write({
          key,
          attempt: { id: 'open intent', state: 'in_doubt', error: 'no answer' },
          move: { to: 'in_doubt', change: { doubtReason: 'no answer' }, type: 'job:in-doubt' },
          durable: true,
        });
        break;
      case 'running':
        await store.write({ key, move: { to: 'running', change: { remoteStatus: 'running' }, type: 'job:status' } });
        break;
      case 'done':
        await store.write({ key, move: { to: 'done', change: { creditsUsed, result: { video_url: `https://cdn.example/${key}.mp4` }, finishedAt: now() }, type: 'job:done' } });
        break;
      case 'failed':
      case 'rejected':
        await store.write({ key, move: { to: status, change: { creditsUsed, failedReason: `the service ${status} it`, finishedAt: now() }, type: 'job:failed' } });
        break;
      case 'hook_failed':
        await store.write({ key, move: { to: 'hook_failed', change: { failedReason: 'its hook failed' }, type: 'job:hook-failed' } });
        break;
      default:
        await store.write({ key, move: { to: status, type: 'job:downloaded' } });
    }
  }
  const row = await store.job(key);
  if (row?.status !== to) throw new Error(`job ${key} did not reach ${to}: it is ${row?.status ?? 'unknown'}`);
  return row;
}

/** Every job state of the store's manifest, in key order, read a page at a time (Store.jobStatePage) as the run reads them. */
export async function allStates(store: Pick<Store, 'jobStatePage'>): Promise<JobState[]> {
  const states: JobState[] = [];
  for await (const page of jobStatePages(store, 3)) states.push(...page);
  return states;
}
