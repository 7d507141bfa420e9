import type { PlanJobs } from '../plan-scope.js';
import { StateError } from '../../errors.js';
import type { StepKind } from '../../step-kinds.js';
import { systemClock, type Clock } from '../../util/clock.js';
import type { HookName, HookResult, HookTarget } from '../hook-run-rows.js';
import type { KeySet, NewJob, PlanFeed } from '../job-change.js';
import type { JobRow } from '../job-row.js';
import type { JobStatus } from '../job-status.js';
import type { LockTaker } from '../lock/lock-policy.js';
import type { EventType } from '../sqlite/events.js';
import type { DownloadedRecord, Intent, JobWrite, Store, Written } from '../store.js';
import { transact, type StoreTx } from './pg-commit.js';
import type { PgDb } from './pg-connection.js';
import { claimReady } from './pg-claims.js';
import { observeAnswer, recordDelivery } from './pg-deliveries.js';
import { moveOutput, sameLinks } from './pg-downloads.js';
import { answers, appendEvents, withManifest, type OpScope } from './pg-events.js';
import type { AccountChange, AccountLimits, AccountView, SlotLives } from '../account-rules.js';
import { accountView, readLimits, shareCooldown, sharedRate, writeLimits, type SharedRate } from '../account-sql.js';
import { LOCK_ACCOUNT, pgSteps } from './pg-account.js';
import { forgetJob } from './pg-forget.js';
import { hookBegin, hookFinish, hookLatest, retryFailedHooks } from './pg-hooks.js';
import { finishDownloadOp, fileOp, hooksRetryOp, intentOp, noteOp, planAgainOp, retryInRunOp, writeAllOp, writeOp } from './pg-job-write.js';
import { beatLock, forceUnlock, lockRow, releaseLock, takeLock } from './pg-lock.js';
import { openMigrated } from './pg-migrate.js';
import { syncPlan } from './pg-plan.js';
import { PgQueue, type WriteScope } from './pg-queue.js';
import { PgReads } from './pg-reads.js';
import { finishRun, startRun } from './pg-runs.js';
import { unique } from './pg-sql.js';
import { HeldRows } from './pg-held-rows.js';
import { LockFence } from '../lock/fence.js';
import { always, never, ReadMemo, WriteCount } from '../read-memo.js';
import { leadLock, runWave, type WaveOp, type WaveSeen } from './pg-wave.js';
import { recoverInterrupted, writeInTurn } from './pg-recover.js';
import { busyMembers, declareTerms, heldByOthers, joinRun, leaveRun, markIdle } from './pg-members.js';
import type { RunMembers } from '../run-members.js';

/**
 * The Store (src/state/store.ts) on PostgreSQL, shared by many processes on many hosts. Every
 * operation is one transaction (pg-commit.ts: its outcome known even when the COMMIT's answer is
 * lost), taken in the order asked for (pg-queue.ts): the job writes of one turn of the event loop
 * go as one wave (pg-wave.ts: rows locked, guards checked on them, parts written by multi-row
 * statements), durably (`synchronous_commit = on`) when any asks — an intent, a remote id, a
 * settlement, a hook, a recovery. Reads are single statements of committed state (pg-reads.ts),
 * but a job's row and its files just written under the run lock (pg-held-rows.ts). Times are the
 * injected clock's, but for the run lock's (pg-lock.ts).
 */
export class PgStore implements Store {
  private scope: string | null = null;
  private run: number | null = null;
  private closed = false;
  private readonly queue: PgQueue;
  private readonly reads: PgReads;
  private readonly held = new HeldRows();
  private readonly fence = new LockFence();
  /** Under the run lock, the whole manifest's states and money are read again only after a write (read-memo.ts). */
  private readonly writes = new WriteCount(() => this.memo.dropStale());
  private readonly memo = new ReadMemo(() => (this.held.holds(this.scope) ? `${this.writes.count}:${this.scope}` : null));

  private constructor(
    private readonly db: PgDb,
    readonly clock: Clock,
  ) {
    this.queue = new PgQueue((scope, ops, durable) =>
      this.holding(scope.manifest, (seen) => this.writes.counted(() => transact(db, (tx) => runWave(tx, this.opScope(scope), ops, true, seen()), { durable, lead: leadLock(scope, ops, this.held.holds(scope.manifest), this.fence.fenceFor(scope.manifest)?.lock ?? null) }))),
    );
    this.reads = new PgReads(db, () => this.manifest);
  }

  /** Connects to the state at `location` and brings it to this build's schema (pg-migrate.ts). */
  static async open(location: string, clock: Clock = systemClock): Promise<PgStore> {
    return new PgStore(await openMigrated(location), clock);
  }

  /** Round trips to the server so far (the bench prints them per job). */
  get roundTrips(): number {
    return this.db.roundTrips;
  }

  get runId(): number | null {
    return this.run;
  }

  get manifest(): string {
    if (this.scope === null) throw new StateError('no manifest chosen: call useManifest or syncPlan first');
    return this.scope;
  }

  useManifest(manifest: string): this {
    this.scope = manifest;
    return this;
  }

  forRun(runId: number | null): this {
    this.run = runId;
    return this;
  }

  // ── runs ──
  startRun(host: string, pid: number, maxCredits: number | null, from: string | null = null): Promise<number> {
    return this.alone(async (tx, scope) => {
      const id = await startRun(tx, withManifest(scope), host, pid, maxCredits, from);
      this.run = id;
      return id;
    }, false, never);
  }

  /** A run's `run:finished` event also keeps the store's round trips so far (not a refused start's): what `npm run bench` prints per job. */
  async finishRun(outcome: string, summary: Record<string, unknown>, refusal: string | null = null): Promise<void> {
    const runId = this.run;
    if (runId === null) return;
    // A refused start did no work to count: its record stays the one SQLite writes.
    const counted = refusal === null ? { ...summary, roundTrips: this.roundTrips } : summary;
    await this.alone((tx, scope) => finishRun(tx, { ...scope, runId }, outcome, counted, refusal), false, never);
  }

  note(type: EventType, jobKey: string | null, data?: Record<string, unknown>): Promise<void> {
    return this.wave(noteOp(type, jobKey, data), false);
  }

  // ── the account (account-sql.ts) ──
  account(): Promise<AccountLimits> {
    return pgSteps(this.db, readLimits(), this.clock);
  }

  setAccount(change: AccountChange): Promise<AccountLimits> {
    return this.alone(async (tx, scope) => {
      const limits = await pgSteps(tx, writeLimits(change, scope.now, LOCK_ACCOUNT), this.clock);
      await appendEvents(tx, { ...scope, manifest: null }, [{ key: null, type: 'account:set', data: { ...limits } }]);
      return limits;
    }, true, never);
  }

  accountView(lives: SlotLives): Promise<AccountView> {
    return this.db.tx((tx) => pgSteps(tx, accountView(lives), this.clock), { doing: 'reading the account' });
  }

  sharedRate(): Promise<SharedRate> {
    return pgSteps(this.db, sharedRate(), this.clock);
  }

  shareCooldown(ms: number): Promise<void> {
    return pgSteps(this.db, shareCooldown(ms), this.clock);
  }

  // ── the plan ──
  syncPlan(manifest: string, jobs: readonly NewJob[] | PlanFeed): Promise<{ added: number; known: number }> {
    this.scope = manifest;
    return this.changingJobs(this.alone((tx, scope) => syncPlan(tx, withManifest(scope), jobs)));
  }

  recoverInterrupted(keys: KeySet, why: string): Promise<JobRow[]> {
    return this.changingJobs(this.alone((tx, scope) => recoverInterrupted(tx, scope, keys, why), true, (rows) => rows.length > 0));
  }

  async claim(limit: number, options: { downloads?: boolean } = {}): Promise<{ key: string; status: JobStatus }[]> {
    // A store acting for no run claims as run 0: claims then count once per store, as a run's do.
    const manifest = this.scope;
    // Quiet: a claim marks the rows for its run (claim_run), which no job state or money shows.
    const { claimed, rows } = await this.alone((tx, op) => claimReady(tx, withManifest(op), this.clock, op.runId ?? 0, limit, options.downloads), false, never);
    // The runner reads each job it claimed next: held, those reads cost nothing.
    this.held.committed(manifest, rows, []);
    return claimed;
  }

  // ── a job's moves ──
  recordIntent(intent: Intent): Promise<number> {
    return this.wave(intentOp(intent), true);
  }

  write(write: JobWrite): Promise<Written> {
    const { key, outputs, ...rest } = write;
    if (typeof outputs === 'object' && Object.keys(rest).every((part) => part === 'durable') && !this.queue.busy(key)) return this.relink(write, outputs);
    return this.wave(writeOp(write), write.durable ?? false);
  }

  /**
   * A write of a job's links alone, when no earlier write of it is still on its way: answered
   * from one read when the links are those recorded (as they are before a download: the job's end
   * recorded them) — nothing to write, no transaction; else written as any write.
   */
  private async relink(write: JobWrite, links: { urls: readonly string[]; places: readonly number[] }): Promise<Written> {
    const manifest = this.manifest;
    this.held.readingFiles(write.key);
    const read = await this.reads.jobWithOutputs(write.key).catch((error: unknown) => {
      this.held.touched(write.key);
      throw error;
    });
    // Its files, read in the same statement, answer the `outputs(key)` a download asks next.
    this.held.keepFiles(manifest, write.key, read?.outputs ?? []);
    if (read && sameLinks(read.outputs, links.urls, links.places)) return { row: read.row, moved: true };
    return this.wave(writeOp(write), write.durable ?? false);
  }

  writeAll(writes: readonly JobWrite[], options: { durable?: boolean; allOrNothing?: boolean } = {}): Promise<Written[]> {
    const durable = options.durable ?? writes.some((w) => w.durable);
    const allOrNothing = options.allOrNothing ?? false;
    if (unique(writes.map((w) => w.key)).length === writes.length) return this.wave(writeAllOp(writes, allOrNothing), durable);
    // A job written twice in one list: its writes one after another, in a transaction of their own.
    return this.changingJobs(this.alone((tx, scope) => writeInTurn(tx, scope, writes, allOrNothing), durable));
  }

  planAgain(keys: readonly string[], from: readonly JobStatus[], data: Record<string, unknown> = {}): Promise<JobRow[]> {
    return this.wave(planAgainOp(unique(keys), from, data), false);
  }

  retryInRun(key: string, data: Record<string, unknown> = {}): Promise<JobRow | undefined> {
    return this.wave(retryInRunOp(key, data), false);
  }

  forget(key: string, by: Record<string, unknown>) {
    return this.changingJobs(this.alone((tx, scope) => forgetJob(tx, withManifest(scope), key, by)));
  }

  recordDelivery(token: string, delivery: { id?: string | undefined; status?: string | undefined }) {
    return this.alone((tx, scope) => recordDelivery(tx, withManifest(scope), token, delivery));
  }

  observeAnswer(key: string, attemptId: number, remoteId: string, why: string): Promise<boolean> {
    return this.alone((tx, scope) => observeAnswer(tx, withManifest(scope), key, attemptId, remoteId, why), true);
  }

  // ── files ──
  recordDownload(key: string, idx: number, file: DownloadedRecord): Promise<void> {
    this.held.recording(file.path);
    return this.wave(fileOp(key, idx, file), false);
  }

  recordVerified(key: string, idx: number, statStamp: string): Promise<void> {
    return this.wave(fileOp(key, idx, { statStamp }), false);
  }

  moveOutput(key: string, idx: number, path: string | null, why: string): Promise<void> {
    this.held.touched(key);
    this.held.recording(path);
    return this.alone((tx, scope) => moveOutput(tx, withManifest(scope), key, idx, path, why));
  }

  finishDownload(key: string, last: { idx: number; file: DownloadedRecord } | undefined, files: number) {
    this.held.recording(last?.file.path);
    return this.wave(finishDownloadOp(key, last, files), false);
  }

  // ── hooks ──
  hookBegin(hook: HookName, target: HookTarget | null, argv: readonly string[]): Promise<number> {
    return this.alone((tx, scope) => hookBegin(tx, withManifest(scope), hook, target, argv), true);
  }

  hookFinish(id: number, result: HookResult) {
    return this.alone((tx, scope) => hookFinish(tx, scope.now, id, result), true);
  }

  async hookLatest(jobKey: string) {
    return hookLatest(this.db, this.manifest, jobKey);
  }

  retryFailedHooks(keys: readonly string[]): Promise<{ jobs: number; hooks: number }> {
    return this.changingJobs(this.alone(async (tx, scope) => {
      const ordered = unique(keys);
      const moved = await answers<boolean>(runWave(tx, scope, ordered.map(hooksRetryOp)));
      const jobs = ordered.filter((_, i) => moved[i]);
      return { jobs: jobs.length, hooks: await retryFailedHooks(tx, withManifest(scope).manifest, jobs) };
    }));
  }

  // ── the run lock ──
  async takeLock(taker: LockTaker & { name: string; token: string; pid: number }): Promise<void> {
    await this.alone((tx, scope) => takeLock(tx, scope, this.clock, taker), false, never);
    this.held.hold(taker.name);
    this.fence.took(taker.name, taker.token);
  }

  /**
   * A no-op once the store is closed (the heartbeat's last tick may fall after the close).
   *
   * Why outside the write queue: a beat queued behind a backlog of waves (a member recording
   * thousands of answers) could wait past its own lease, and the member was taken over while alive.
   * A beat orders against nothing of ours: it touches only the lock row, and a fenced wave holds
   * that row FOR SHARE (pg-wave.ts), so the beat waits for at most that one transaction.
   */
  async beatLock(name: string, token: string): Promise<boolean> {
    if (this.closed) return true;
    const ours = await this.inTx((tx) => beatLock(tx, this.opScope(this.current()), this.clock, name, token), false, never);
    if (!ours) this.held.release(name);
    return ours;
  }

  /** A no-op once the store is closed: a lock released after its store closed went with the process's end. */
  async releaseLock(name: string, token: string): Promise<void> {
    if (this.closed) return;
    this.held.release(name);
    await this.alone((tx, scope) => releaseLock(tx, scope, name, token), false, never);
    this.fence.released(name);
  }

  /**
   * A run joining the live run of its manifest (pg-members.ts). A member's writes are fenced by
   * its own lock; its store never holds the manifest's rows (pg-held-rows.ts) nor memoises its
   * reads: other members write the same manifest.
   */
  readonly members: RunMembers = {
    join: async (taker, terms) => {
      const manifest = this.manifest;
      const lead = await this.alone((tx, scope) => joinRun(tx, { ...withManifest(scope), runId: scope.runId ?? 0 }, this.clock, taker, terms), false, never);
      if (lead && !('refused' in lead)) this.fence.took(manifest, taker.token, taker.name);
      return lead;
    },
    declare: (terms) => declareTerms(this.db, this.run ?? 0, terms),
    idle: (lock, token, idle) => markIdle(this.db, this.clock, lock, token, idle),
    busy: (token) => busyMembers(this.db, this.manifest, token),
    heldByOthers: () => heldByOthers(this.db, this.manifest, this.run),
    leave: async (lock, token) => {
      if (this.closed) return false;
      this.held.release(lock);
      const last = await this.alone((tx, scope) => leaveRun(tx, withManifest(scope), this.clock, lock, token), false, never);
      this.fence.released(lock);
      return last;
    },
  };

  async lockRow(name: string) {
    return lockRow(this.db, name);
  }

  forceUnlock(name: string, token: string | null, data: Record<string, unknown>): Promise<boolean> {
    this.held.release(name);
    return this.alone((tx, scope) => forceUnlock(tx, scope, name, token, data));
  }

  // ── reads ──
  async job(key: string): Promise<JobRow | undefined> {
    const held = this.scope === null ? undefined : this.held.row(this.scope, key);
    return held ? { ...held } : this.reads.job(key);
  }

  jobs(keys: readonly string[]) {
    return this.reads.jobs(keys);
  }

  plannedJobs(keys: readonly string[]) {
    return this.reads.plannedJobs(keys);
  }

  jobStatePage(after: string | null, limit: number, recorded?: boolean) {
    return this.reads.jobStatePage(after, limit, recorded);
  }

  jobsWithStatus(statuses: readonly JobStatus[]) {
    return this.reads.jobsWithStatus(statuses);
  }

  inDoubtNamedByDelivery() {
    return this.reads.inDoubtNamedByDelivery();
  }

  lastAttempt(key: string) {
    return this.reads.lastAttempt(key);
  }

  attempts(key: string) {
    return this.reads.attempts(key);
  }

  attemptByHookToken(token: string) {
    return this.reads.attemptByHookToken(token);
  }

  async outputs(key: string) {
    return (this.scope !== null && this.held.takeFiles(this.scope, key)) || this.reads.outputs(key);
  }

  outputsOf(keys: readonly string[]) {
    return this.reads.outputsOf(keys);
  }

  async outputsAtPath(path: string) {
    // Under the run lock, a path no recorded file can be at is answered without a round trip.
    if (this.scope !== null && !(await this.held.mayHavePath(this.scope, path, () => this.reads.recordedPaths()))) return [];
    return this.reads.outputsAtPath(path);
  }

  items(key: string) {
    return this.reads.items(key);
  }

  allItems() {
    return this.reads.allItems();
  }

  money(jobs: PlanJobs) {
    return this.memo.moneyOf(jobs, () => this.reads.money(jobs));
  }

  retriesInRun(key: string) {
    // A run without a row (the runner used as a library) counts as run 0, as its retries do.
    return this.reads.retriesInRun(key, this.run ?? 0);
  }

  remoteIdsKnown(kind: StepKind, ids: readonly string[]) {
    return this.reads.remoteIdsKnown(kind, ids);
  }

  remoteIdOwner(remoteId: string, exceptAttempt: number | null = null) {
    return this.reads.remoteIdOwner(remoteId, exceptAttempt);
  }

  identity(location: string) {
    return this.reads.identity(location);
  }

  /** Commits what is queued, then closes the pool; a second close does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.queue.alone(async () => undefined);
    } finally {
      await this.db.close();
    }
  }

  /** What an operation writes for: the manifest and run as it was asked for, the time as it runs. */
  private opScope(scope: WriteScope): OpScope {
    return { ...scope, now: this.clock.now(), clock: this.clock, fence: this.fence.fenceFor(scope.manifest) };
  }

  /**
   * A wave's transaction, its rows held once it committed (pg-held-rows.ts). `seen` starts anew
   * for each try of the transaction: only what the committed one saw is kept.
   */
  private async holding<T>(manifest: string | null, run: (seen: () => WaveSeen) => Promise<T>): Promise<T> {
    let seen: WaveSeen = { rows: new Map(), touched: new Set() };
    try {
      const value = await run(() => (seen = { rows: new Map(), touched: new Set() }));
      this.held.committed(manifest, seen.rows, seen.touched);
      return value;
    } catch (error) {
      this.held.drop();
      throw error;
    }
  }

  /** An operation that changes jobs outside a wave: nothing held stays, however it ended. */
  private changingJobs<T>(done: Promise<T>): Promise<T> {
    return done.finally(() => this.held.drop());
  }

  /** One transaction of the store, durable when asked (pg-commit.ts), counted unless `changed` says it changed nothing (read-memo.ts). */
  private inTx<T>(body: (tx: StoreTx) => Promise<T>, durable: boolean, changed: (value: T) => boolean = always): Promise<T> {
    return this.writes.counted(() => transact(this.db, body, { durable }), changed);
  }

  /** An operation in a transaction of its own, at its place among the queued writes; `changed` as inTx. */
  private alone<T>(body: (tx: StoreTx, scope: OpScope) => Promise<T>, durable = false, changed: (value: T) => boolean = always): Promise<T> {
    const scope = this.current();
    return this.queue.alone(() => this.inTx((tx) => body(tx, this.opScope(scope)), durable, changed));
  }

  private wave<T>(op: WaveOp<T>, durable: boolean): Promise<T> {
    return this.queue.wave(op, this.current(), durable);
  }

  /** The manifest and run current as a write is asked for (what it is made for, however late it runs). */
  private current(): WriteScope {
    return { manifest: this.scope, runId: this.run };
  }
}
