import type { PlanJobs } from './plan-scope.js';
import type { StepKind } from '../step-kinds.js';
import type { Clock } from '../util/clock.js';
import type { JobChange, KeySet, NewJob, PlanFeed, PlannedRecord } from './job-change.js';
import type { AttemptRow, AttemptState, JobRow, JobState, OutputRow } from './job-row.js';
import type { JobStatus } from './job-status.js';
import type { StateIdentity } from './outputs-owner.js';
import type { EventType } from './sqlite/events.js';
import type { ForgetResult } from './sqlite/forget-job.js';
import type { HookName, HookResult, HookRunRow, HookTarget } from './sqlite/hook-runs.js';
import type { JobItemRow } from './sqlite/job-items.js';
import type { LockRow, LockTaker } from './lock/lock-policy.js';
import type { MoneySums } from './money-sums.js';
import type { AccountChange, AccountLimits, AccountView, SlotLifeRule, SlotLives } from './account-rules.js';
import type { SharedRate } from './account-sql.js';
import type { RunMembers } from './run-members.js';

/**
 * The one door to the state: what the runner and the commands that change a manifest's jobs ask
 * of it. Every method is an OPERATION — it does one thing, whole, in one transaction inside the
 * store, and answers once that transaction has committed. No caller reads a row and writes it
 * back: between two awaits other jobs run, so a decision that depends on a job's state travels
 * with the write (`JobWrite.onlyFrom`) and is checked where it is written. No transaction is
 * ever held across an await.
 *
 * Writes queued in one turn of the event loop commit together (group commit); the writes that
 * decide whether a job is paid for twice — an intent before its POST, the remote id after it, a
 * settlement, a hook about to run — are durable: on disk before the promise settles.
 *
 * Where each operation lives (the SQLite store; a later store implements the same interface):
 *   the door itself ............ sqlite/sqlite-store.ts (each method, its transaction, its durability)
 *   jobs, attempts, runs ....... sqlite/job-store.ts (a job's moves: the machine of job-status.ts)
 *   claims ..................... sqlite/claims.ts (the ready order, once per run)
 *   files and events ........... sqlite/store-core.ts
 *   money ...................... sqlite/charges.ts (the ledger), sqlite/money.ts (its sums)
 *   items (HTML ads) ........... sqlite/job-items.ts
 *   hooks ...................... sqlite/hook-runs.ts
 *   the run lock ............... sqlite/lock.ts (its policy), lock/ (the holder's heartbeat)
 *   forgetting a job ........... sqlite/forget-job.ts
 *   one JobWrite ............... sqlite/apply-write.ts (guard, attempt, items and refund, move, links)
 *   group commit ............... sqlite/write-batch.ts
 *   opening, migrations ........ open-store.ts (the one way commands open it), sqlite/open-db.ts, sqlite/migrations.ts
 *
 * The commands that only look at the state (`status`, the report, `runs`, `doubt`, `logs`, `plan`,
 * a run's checks before it starts) go through the other door, state-reader.ts (StateReader,
 * opened with stateAt): reads of committed state, no lock, while a run may be going. On SQLite:
 * sqlite/sqlite-reader.ts over sqlite/facts-reads.ts (every job's facts, files, items, attempts and
 * money), sqlite/run-reads.ts (runs, the report's header, jobs in doubt, hook runs),
 * sqlite/state-identity.ts, sqlite/job-money.ts, sqlite/catalogue-cache.ts. The files a state's
 * runs keep beside it (logs, the sandbox's journal) are placed from the project (locate.ts).
 * Nothing outside src/state/ imports a database driver or holds SQL (eslint.config.js enforces it).
 */
export interface Store {
  readonly clock: Clock;
  /** The run this store writes for, once `startRun` (or `forRun`) named it; events carry it. */
  readonly runId: number | null;
  /** The manifest whose jobs this store reads and writes (useManifest, syncPlan). */
  readonly manifest: string;
  /** Scopes the store to a manifest: a job is identified by (manifest, key). No I/O. */
  useManifest(manifest: string): this;
  /** Writes as run `runId` from now on (a process that acts for a run it did not start). No I/O. */
  forRun(runId: number | null): this;

  // ── runs ──────────────────────────────────────────────────────────────────────────────────────
  /**
   * A run's row, as it starts: the store writes for it from here. `from`: the manifest file it was
   * started from (its real path), kept with the host (a manifest is known by its identity, and runs
   * from any path or host that has it).
   */
  startRun(host: string, pid: number, maxCredits: number | null, from?: string | null): Promise<number>;
  /** How the run ended; `refusal` says why its start was refused (run/refusals.ts). No-op without a run. */
  finishRun(outcome: string, summary: Record<string, unknown>, refusal?: string | null): Promise<void>;
  /** Appends an event to the log (secrets scrubbed). */
  note(type: EventType, jobKey: string | null, data?: Record<string, unknown>): Promise<void>;

  // ── the plan ──────────────────────────────────────────────────────────────────────────────────
  /**
   * Records the plan's jobs (a known key keeps its status and history) and scopes the store to the
   * manifest. These jobs, and no other of the manifest's, are the plan the run's claims hand out.
   * A feed is read once, a job at a time, in one transaction: a run that dies while recording
   * leaves the plan recorded before it, whole.
   */
  syncPlan(manifest: string, jobs: readonly NewJob[] | PlanFeed): Promise<{ added: number; known: number }>;
  /** The jobs of `keys` as planned (their records, syncPlan), in the order given; a key without a record is left out. */
  plannedJobs(keys: readonly string[]): Promise<PlannedRecord[]>;
  /**
   * Jobs of `keys` found `submitting` (an earlier run died mid-POST): each open intent closed in
   * doubt and the job moved to `in_doubt`, durably. Returns the rows moved.
   */
  recoverInterrupted(keys: KeySet, why: string): Promise<JobRow[]>;

  /**
   * Claims up to `limit` ready jobs of the plan last recorded (syncPlan) for this run, in the one
   * ready order (run/ready-order.ts): jobs already sent first (`submitting`, `submitted`,
   * `running`, `in_doubt`, in plan order), then `planned` ones by priority descending and plan
   * order. A job is claimed once per run: the runner drives what it claimed and claims again until
   * none is left. A claim reads a window of the plan, not the plan (migration 24's jobs_ready): its
   * cost is its window and the jobs claimed before it still to finish, whatever the plan's size.
   * With `downloads`, jobs finished and not downloaded (`done`) too, among the sent ones: a member
   * of a shared run takes over a lapsed member's downloads (run/members.ts).
   */
  claim(limit: number, options?: { downloads?: boolean }): Promise<{ key: string; status: JobStatus }[]>;

  // ── a job's moves ─────────────────────────────────────────────────────────────────────────────
  /** Opens an attempt and moves the job to `submitting` with its request and reservation, durably: the POST may go once this settles. */
  recordIntent(intent: Intent): Promise<number>;
  /** One job's write (see JobWrite), in one transaction. */
  write(write: JobWrite): Promise<Written>;
  /**
   * Many jobs' writes in one transaction (a wave of reads, a file of settlements). With
   * `allOrNothing`, a write whose `onlyFrom` does not hold throws StaleWriteError and nothing is written.
   */
  writeAll(writes: readonly JobWrite[], options?: { durable?: boolean; allOrNothing?: boolean }): Promise<Written[]>;
  /**
   * `reelpipe retry`: plans the jobs of `keys` in one of `from` again, in one transaction (what
   * each failed attempt was counted as costing stays counted). Returns the rows planned again.
   */
  planAgain(keys: readonly string[], from: readonly JobStatus[], data?: Record<string, unknown>): Promise<JobRow[]>;
  /**
   * Plans a job the service failed (or partly failed) in this run again, as an automatic retry:
   * its last attempt marked as retried by this run. Only from `failed` or `partly_failed`;
   * undefined when the job is elsewhere.
   */
  retryInRun(key: string, data?: Record<string, unknown>): Promise<JobRow | undefined>;
  /** `reelpipe forget`: drops the job's record (its charges kept, marked forgotten); refused while it may exist at the service. */
  forget(key: string, by: Record<string, unknown>): Promise<ForgetResult | undefined>;
  /**
   * A webhook delivery to the attempt whose address carries `token`: the remote id it names is
   * kept on an attempt whose answer is not recorded (the first named wins), and logged. Returns
   * the attempt as it was, or undefined when the token is none of this manifest's attempts.
   */
  recordDelivery(token: string, delivery: { id?: string | undefined; status?: string | undefined }): Promise<AttemptRow | undefined>;
  /**
   * A creation answer received but not recorded (the run lost its lock, a write failed): its remote
   * id kept on the attempt like a delivery's (the first named wins), and logged as `job:observed` —
   * never fenced, so the next reconciliation adopts the job. Answers whether the attempt took it.
   */
  observeAnswer(key: string, attemptId: number, remoteId: string, why: string): Promise<boolean>;

  // ── files ─────────────────────────────────────────────────────────────────────────────────────
  recordDownload(key: string, idx: number, file: DownloadedRecord): Promise<void>;
  /** A recorded output read in full and still intact: its new stat stamp. */
  recordVerified(key: string, idx: number, statStamp: string): Promise<void>;
  /** A recorded file moved to `path` (null: gone), its checksum kept; logged on the job. */
  moveOutput(key: string, idx: number, path: string | null, why: string): Promise<void>;
  /**
   * The end of a job's download: `last` (the last file's record, kept for this commit) written,
   * then, if every recorded file is on disk with its checksum, the job moves to `downloaded`
   * (`partly_failed` when an item it was to make failed); else it stays `done` with the count missing.
   */
  finishDownload(key: string, last: { idx: number; file: DownloadedRecord } | undefined, files: number): Promise<{ row: JobRow } | { missing: number }>;

  // ── hooks ─────────────────────────────────────────────────────────────────────────────────────
  /** A hook about to start, durably; a row of the same hook and output still `running` becomes `interrupted`. */
  hookBegin(hook: HookName, target: HookTarget | null, argv: readonly string[]): Promise<number>;
  /** How the hook's command ended, durably. */
  hookFinish(id: number, result: HookResult): Promise<HookRunRow>;
  /** The newest on_output row of each output of a job, by output index. */
  hookLatest(jobKey: string): Promise<Map<number, HookRunRow>>;
  /**
   * `reelpipe retry --hooks`: the failed on_output hooks of the `hook_failed` jobs among `keys`
   * become `retried` and those jobs go back to `downloaded` (or `partly_failed`), in one transaction.
   */
  retryFailedHooks(keys: readonly string[]): Promise<{ jobs: number; hooks: number }>;

  // ── the run lock ──────────────────────────────────────────────────────────────────────────────
  /** Takes the lock (breaking a dead or stale holder's, logged) or throws LockedError. */
  takeLock(taker: LockTaker & { name: string; token: string; pid: number }): Promise<void>;
  /** Refreshes our heartbeat; false once the lock is someone else's (logged as lost). */
  beatLock(name: string, token: string): Promise<boolean>;
  /** Gives the lock up (only ours). */
  releaseLock(name: string, token: string): Promise<void>;
  /** The lock's row as held, if anyone holds it. */
  lockRow(name: string): Promise<LockRow | undefined>;
  /** `reelpipe unlock --force`: removes the lock if the same holder still has it (by token); logged with `data`. */
  forceUnlock(name: string, token: string | null, data: Record<string, unknown>): Promise<boolean>;
  /** Joining a live run of the manifest as a member (run-members.ts); null where one process runs a manifest (SQLite). */
  readonly members: RunMembers | null;

  // ── the account (account-rules.ts: limits every manifest on this state shares) ────────────────
  /** The account's limits (NO_LIMITS when never set). */
  account(): Promise<AccountLimits>;
  /** `account set`: changes the limits (logged as `account:set`) and answers them. */
  setAccount(change: AccountChange): Promise<AccountLimits>;
  /** `account show`: the limits, and what counts against them per manifest and in total. */
  accountView(lives: SlotLives): Promise<AccountView>;
  /** The account's shared rate, the live runs it is split between, and the shared cooldown left. */
  sharedRate(): Promise<SharedRate>;
  /** A 429 met: every run on the account holds its requests for `ms` (unless held longer already). */
  shareCooldown(ms: number): Promise<void>;

  // ── reads (each one query, or a few, of committed state) ──────────────────────────────────────
  job(key: string): Promise<JobRow | undefined>;
  /** Jobs by key, in the order given; unknown keys are skipped. */
  jobs(keys: readonly string[]): Promise<JobRow[]>;
  /**
   * The manifest's job states in key order, the first `limit` after the key `after` (null: from the
   * first): the whole manifest read a page at a time, never held at once (a run's end counts them).
   * `recorded`: only the jobs recorded past `planned`, what a run starts from (a planned job's claim
   * says all it needs); when there is none, the first page says so without reading the jobs (a first
   * run of 100,000 jobs read every row to keep none).
   */
  jobStatePage(after: string | null, limit: number, recorded?: boolean): Promise<JobState[]>;
  jobsWithStatus(statuses: readonly JobStatus[]): Promise<JobRow[]>;
  /** The keys of jobs in doubt whose last attempt a webhook delivery named. */
  inDoubtNamedByDelivery(): Promise<string[]>;
  lastAttempt(key: string): Promise<AttemptRow | undefined>;
  attempts(key: string): Promise<AttemptRow[]>;
  attemptByHookToken(token: string): Promise<AttemptRow | undefined>;
  outputs(key: string): Promise<OutputRow[]>;
  /** The outputs of the jobs `keys` names, by job, each job's in place order (a job without one is absent). */
  outputsOf(keys: readonly string[]): Promise<Map<string, OutputRow[]>>;
  /** The manifest's recorded outputs whose file is at `path` (relative to the outputs folder). */
  outputsAtPath(path: string): Promise<{ jobKey: string; idx: number }[]>;
  /** The items a job makes (an HTML ad per style), in their places' order. */
  items(key: string): Promise<JobItemRow[]>;
  /** The items of every job of the manifest that has some. */
  allItems(): Promise<Map<string, JobItemRow[]>>;
  /** The manifest's money over every charge it ever had, each of `jobs` with its own figure, and what each run was charged for the remote jobs it sent. */
  money(jobs: PlanJobs): Promise<MoneySums>;
  /** How many times this run retried the job automatically. */
  retriesInRun(key: string): Promise<number>;
  /** Which of `ids` (of `kind`) were ever recorded for any job or attempt: never adopted again. */
  remoteIdsKnown(kind: StepKind, ids: readonly string[]): Promise<Set<string>>;
  /** The job that owns `remoteId` (its id, or one its attempts were answered with or named by), other than attempt `exceptAttempt`'s delivery. */
  remoteIdOwner(remoteId: string, exceptAttempt?: number | null): Promise<{ manifest: string; key: string } | undefined>;
  /** This state's identity (made with it), when it was made, and how many jobs of the manifest it knows. */
  identity(location: string): Promise<StateIdentity>;

  close(): Promise<void>;
}

/** What `recordIntent` commits before a POST. */
export interface Intent {
  key: string;
  /** The request as it will be sent (references resolved, webhook address set). */
  request: Record<string, unknown>;
  /** The token of the attempt's own webhook address, when the run listens. */
  hookToken: string | null;
  pathId: string | null;
  /** The credits held for it under the cap (its high estimate, or its items' share). */
  creditsReserved: number;
  /**
   * Asks the account first (account-rules.ts), in the intent's transaction: refused with
   * AccountLimitError (nothing written) when no slot is free or the account's cap would be
   * passed. Its rule: how long a job in doubt of each kind keeps its slot.
   */
  gate?: SlotLifeRule;
}

/** A file as downloaded, to record on its output row. */
export interface DownloadedRecord {
  /** Relative to the outputs folder. */
  path: string;
  bytes: number;
  sha256: string;
  contentType: string;
  statStamp: string;
}

/**
 * One job's write, in one transaction, in this order: the guard, the attempt, the items and
 * refund, the move, the output links. Each part is optional but the key.
 */
export interface JobWrite {
  key: string;
  /**
   * Written only while the job is in one of these statuses, read in the same transaction; else
   * nothing is written and `Written.moved` is false. Why: the caller decided on a row it read
   * earlier, and whatever moved the job since is newer than that decision.
   */
  onlyFrom?: readonly JobStatus[];
  /** Closes an attempt: by id, or the job's last attempt if it is still an open intent (`'open intent'`). */
  attempt?: { id: number | 'open intent'; state: AttemptState; remoteId?: string; error?: string };
  /** What the remote job made of each item it was asked for (replacing the records of those items). */
  items?: readonly Omit<JobItemRow, 'jobKey'>[];
  /** Credits refunded on the charge of the remote job `remoteId` (derived from the price rule or reported). */
  refund?: { remoteId: string; credits: number; derived: boolean };
  /**
   * The job's move, checked against the machine of job-status.ts and logged as `type`. `'made'`:
   * `downloaded`, or `partly_failed` while an item it was to make has failed.
   */
  move?: { to: JobStatus | 'made'; change?: JobChange; type: EventType; data?: Record<string, unknown> };
  /** Its files' links: each URL at its place; `'items'`: the links of its items made (each at the item's place). */
  outputs?: { urls: readonly string[]; places: readonly number[] } | 'items';
  /** On disk before the write's promise settles (with the writes committed beside it). @default false */
  durable?: boolean;
}

/** A write's outcome: the job's row after it, and whether it was written (its `onlyFrom` held). */
export interface Written {
  row: JobRow;
  moved: boolean;
}
