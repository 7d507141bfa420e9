import type { PlanJobs } from '../plan-scope.js';
import type { StepKind } from '../../step-kinds.js';
import { systemClock, type Clock } from '../../util/clock.js';
import type { KeySet, NewJob, PlanFeed } from '../job-change.js';
import type { JobRow } from '../job-row.js';
import type { JobStatus } from '../job-status.js';
import type { LockTaker } from '../lock/lock-policy.js';
import type { DownloadedRecord, Intent, JobWrite, Store, Written } from '../store.js';
import type { EventType } from './events.js';
import { forgetJob } from './forget-job.js';
import type { HookName, HookResult, HookTarget } from './hook-runs.js';
import { HookRuns } from './hook-runs.js';
import { StateStore } from './job-store.js';
import { beatLock, forceUnlock, lockRow, lockToken, releaseLock, takeLock } from './lock.js';
import { assertFence, LockFence } from '../lock/fence.js';
import { applyWrite, StaleWriteError } from './apply-write.js';
import { claimReady } from './claims.js';
import { ReadMemo } from '../read-memo.js';
import { refusal, type AccountChange, type AccountLimits, type AccountView, type SlotLives } from '../account-rules.js';
import { accountView, gate, readLimits, shareCooldown, sharedRate, writeLimits, type SharedRate } from '../account-sql.js';
import { sqliteSteps } from './account.js';
import { filesMissing, interruptedWrite, retriableInRun } from '../job-moves.js';

/**
 * The Store (src/state/store.ts) on one SQLite file. Every write is an operation queued on the
 * group commit (write-batch.ts): those of one turn of the event loop commit in one transaction,
 * each in its own savepoint, durably when any of them asks. Reads run at once on committed state
 * (better-sqlite3 answers synchronously; the promise is the interface's, so a store that must
 * wait for its server fits the same door).
 */
export class SqliteStore implements Store {
  private closed = false;
  private readonly fence = new LockFence();
  private readonly now = () => this.engine.clock.now();
  /** The whole manifest's states and money, read again only when the file changed (read-memo.ts). */
  private readonly memo: ReadMemo;
  /** The fence's token as read in the group commit's current transaction (tokenInTransaction). */
  private fenceRead: { transaction: number; name: string; token: string | null } | null = null;

  constructor(private readonly engine: StateStore) {
    this.memo = new ReadMemo(() => engine.version());
  }

  static open(path: string, clock: Clock = systemClock): SqliteStore {
    return new SqliteStore(StateStore.open(path, clock));
  }

  get clock(): Clock {
    return this.engine.clock;
  }

  get runId(): number | null {
    return this.engine.runId;
  }

  get manifest(): string {
    return this.engine.manifest;
  }

  useManifest(manifest: string): this {
    this.engine.useManifest(manifest);
    return this;
  }

  forRun(runId: number | null): this {
    this.engine.runId = runId;
    return this;
  }

  /**
   * Queues `fn` on the group commit: resolves once the transaction holding it committed. Any write
   * but a fenced one may change a lock (take, beat, release, break it): the fence's token read in
   * this transaction is read again after it.
   */
  private soon<T>(fn: () => T, durable: boolean, keepsFence = false): Promise<T> {
    const run = keepsFence ? fn : () => {
      try {
        return fn();
      } finally {
        this.fenceRead = null;
      }
    };
    const done = this.engine.soon(run, { durable });
    // What the memo keeps is stale once this committed a change: let go then (read-memo.ts).
    const drop = () => {
      if (!this.closed) this.memo.dropStale();
    };
    done.then(drop, drop);
    return done;
  }

  /** A write of the manifest's jobs, refused inside its transaction once the run lock it took is not its own (lock/fence.ts). */
  private fenced<T>(fn: () => T, durable: boolean): Promise<T> {
    const token = this.fence.tokenFor(this.engine.scoped);
    if (token === null) return this.soon(fn, durable, true);
    return this.soon(() => {
      assertFence(this.engine.scoped, token, this.tokenInTransaction(this.engine.scoped!));
      return fn();
    }, durable, true);
  }

  /**
   * The token the lock row holds, read once per transaction of the group commit (its writes all
   * commit together, under SQLite's write lock, so no other process can change it between them):
   * a 64-job wave's fenced writes read it once, not 64 times.
   */
  private tokenInTransaction(name: string): string | null {
    const transaction = this.engine.transactionSerial;
    if (this.fenceRead?.transaction !== transaction || this.fenceRead.name !== name) {
      this.fenceRead = { transaction, name, token: lockToken(this.engine, name) };
    }
    return this.fenceRead.token;
  }

  // ── runs ──
  startRun(host: string, pid: number, maxCredits: number | null, from: string | null = null): Promise<number> {
    return this.soon(() => this.engine.startRun(this.manifest, host, pid, maxCredits, from), false);
  }

  finishRun(outcome: string, summary: Record<string, unknown>, refusal: string | null = null): Promise<void> {
    return this.soon(() => this.engine.finishRun(outcome, summary, refusal), false);
  }

  note(type: EventType, jobKey: string | null, data?: Record<string, unknown>): Promise<void> {
    return this.soon(() => this.engine.event(type, jobKey, data), false);
  }

  // ── the plan ──
  syncPlan(manifest: string, jobs: readonly NewJob[] | PlanFeed): Promise<{ added: number; known: number }> {
    this.engine.useManifest(manifest);
    return this.soon(() => this.engine.syncPlan(manifest, jobs), false);
  }

  recoverInterrupted(keys: KeySet, why: string): Promise<JobRow[]> {
    return this.fenced(() => {
      const orphans = this.engine.jobsWithStatus(['submitting']).filter((row) => keys.has(row.key));
      return orphans.map((row) => applyWrite(this.engine, interruptedWrite(row.key, why)).row);
    }, true);
  }

  // ── a job's moves ──
  recordIntent(intent: Intent): Promise<number> {
    return this.fenced(() => {
      if (intent.gate) {
        const verdict = sqliteSteps(this.engine.db, gate([{ key: intent.key, amount: intent.creditsReserved }], intent.gate, this.runId), this.now)?.[0];
        // Thrown inside the intent's savepoint: nothing of it is written.
        if (verdict && !verdict.granted) throw refusal(verdict);
      }
      const id = this.engine.insertAttempt(intent.key, intent.request, intent.hookToken);
      this.engine.transition(intent.key, 'submitting', {
        request: intent.request,
        pathId: intent.pathId,
        creditsReserved: intent.creditsReserved,
      }, 'job:intent', { attempt: id });
      return id;
    }, true);
  }

  // ── the account ──
  account(): Promise<AccountLimits> {
    return Promise.resolve(sqliteSteps(this.engine.db, readLimits(), this.now));
  }

  setAccount(change: AccountChange): Promise<AccountLimits> {
    return this.soon(() => {
      const limits = sqliteSteps(this.engine.db, writeLimits(change, this.now()), this.now);
      this.engine.event('account:set', null, { ...limits });
      return limits;
    }, true);
  }

  accountView(lives: SlotLives): Promise<AccountView> {
    return Promise.resolve(sqliteSteps(this.engine.db, accountView(lives), this.now));
  }

  sharedRate(): Promise<SharedRate> {
    return Promise.resolve(sqliteSteps(this.engine.db, sharedRate(), this.now));
  }

  shareCooldown(ms: number): Promise<void> {
    return this.soon(() => sqliteSteps(this.engine.db, shareCooldown(ms), this.now), false);
  }

  write(write: JobWrite): Promise<Written> {
    return this.fenced(() => applyWrite(this.engine, write), write.durable ?? false);
  }

  writeAll(writes: readonly JobWrite[], options: { durable?: boolean; allOrNothing?: boolean } = {}): Promise<Written[]> {
    const durable = options.durable ?? writes.some((w) => w.durable);
    return this.fenced(() => writes.map((w) => {
      const written = applyWrite(this.engine, w);
      // Thrown inside the savepoint: every write of the list is rolled back with it.
      if (options.allOrNothing && !written.moved) throw new StaleWriteError(written.row);
      return written;
    }), durable);
  }

  claim(limit: number, options: { downloads?: boolean } = {}): Promise<{ key: string; status: JobStatus }[]> {
    // A store acting for no run claims as run 0: claims then count once per store, as a run's do.
    return this.soon(() => claimReady(this.engine, this.runId ?? 0, limit, options.downloads), false);
  }

  planAgain(keys: readonly string[], from: readonly JobStatus[], data: Record<string, unknown> = {}): Promise<JobRow[]> {
    return this.fenced(() => this.engine.jobs(keys).filter((row) => from.includes(row.status)).map((row) => this.engine.planAgain(row.key, data)), false);
  }

  retryInRun(key: string, data: Record<string, unknown> = {}): Promise<JobRow | undefined> {
    return this.fenced(() => {
      return retriableInRun(this.engine.job(key)?.status) ? this.engine.retryInRun(key, data) : undefined;
    }, false);
  }

  forget(key: string, by: Record<string, unknown>) {
    return this.soon(() => forgetJob(this.engine, key, by), false);
  }

  recordDelivery(token: string, delivery: { id?: string | undefined; status?: string | undefined }) {
    return this.soon(() => {
      const attempt = this.engine.attemptByHookToken(token);
      if (!attempt || !delivery.id) return attempt;
      if (!attempt.remoteId && !attempt.deliveredId) {
        this.engine.noteDelivery(attempt.id, delivery.id);
        this.engine.event('job:delivered', attempt.jobKey, { attempt: attempt.id, remoteId: delivery.id, remoteStatus: delivery.status ?? null });
      }
      return attempt;
    }, false);
  }

  observeAnswer(key: string, attemptId: number, remoteId: string, why: string): Promise<boolean> {
    return this.soon(() => {
      const kept = this.engine.keepObserved(key, attemptId, remoteId);
      this.engine.event('job:observed', key, { attempt: attemptId, remoteId, kept, why });
      return kept;
    }, true);
  }

  // ── files ──
  recordDownload(key: string, idx: number, file: DownloadedRecord): Promise<void> {
    return this.fenced(() => this.engine.recordDownload(key, idx, file), false);
  }

  recordVerified(key: string, idx: number, statStamp: string): Promise<void> {
    return this.soon(() => this.engine.recordVerified(key, idx, statStamp), false);
  }

  moveOutput(key: string, idx: number, path: string | null, why: string): Promise<void> {
    return this.soon(() => this.engine.moveOutput(key, idx, path, why), false);
  }

  finishDownload(key: string, last: { idx: number; file: DownloadedRecord } | undefined, files: number) {
    return this.fenced(() => {
      if (last) this.engine.recordDownload(key, last.idx, last.file);
      // Downloaded means every recorded file is on disk with its checksum, checked once more at the
      // end: a link refreshed for one file must not have taken another's record with it.
      const missing = filesMissing(this.engine.outputs(key));
      if (missing > 0) return { missing };
      return { row: this.engine.transition(key, this.engine.madeStatus(key), { failedReason: null }, 'job:downloaded', { files }) };
    }, false);
  }

  // ── hooks ──
  hookBegin(hook: HookName, target: HookTarget | null, argv: readonly string[]): Promise<number> {
    return this.soon(() => new HookRuns(this.engine).begin(hook, target, argv), true);
  }

  hookFinish(id: number, result: HookResult) {
    return this.soon(() => new HookRuns(this.engine).finish(id, result), true);
  }

  async hookLatest(jobKey: string) {
    return new HookRuns(this.engine).latestOfJob(jobKey);
  }

  retryFailedHooks(keys: readonly string[]): Promise<{ jobs: number; hooks: number }> {
    return this.soon(() => {
      const rows = this.engine.jobs(keys).filter((row) => row.status === 'hook_failed');
      const hooks = new HookRuns(this.engine).retryFailed(rows.map((r) => r.key));
      for (const row of rows) this.engine.transition(row.key, this.engine.madeStatus(row.key), { failedReason: null }, 'job:hooks-retry', { previous: row.failedReason });
      return { jobs: rows.length, hooks };
    }, false);
  }

  // ── the run lock ──
  async takeLock(taker: LockTaker & { name: string; token: string; pid: number }): Promise<void> {
    await this.soon(() => takeLock(this.engine, taker), false);
    this.fence.took(taker.name, taker.token);
  }

  /** A no-op once the store is closed (the heartbeat's last tick may fall after the close). */
  async beatLock(name: string, token: string): Promise<boolean> {
    if (this.closed) return true;
    return this.soon(() => beatLock(this.engine, name, token), false);
  }

  /** A no-op once the store is closed: a lock released after its store closed went with the process's end. */
  async releaseLock(name: string, token: string): Promise<void> {
    if (this.closed) return;
    await this.soon(() => releaseLock(this.engine, name, token), false);
    this.fence.released(name);
  }

  /** One process runs a manifest on SQLite: a second run exits 75. */
  readonly members = null;

  async lockRow(name: string) {
    return lockRow(this.engine, name);
  }

  forceUnlock(name: string, token: string | null, data: Record<string, unknown>): Promise<boolean> {
    return this.soon(() => forceUnlock(this.engine, name, token, data), false);
  }

  // ── reads ──
  async job(key: string) {
    return this.engine.job(key);
  }

  async jobs(keys: readonly string[]) {
    return this.engine.jobs(keys);
  }

  async plannedJobs(keys: readonly string[]) {
    return this.engine.plannedJobs(keys);
  }

  async jobStatePage(after: string | null, limit: number, recorded?: boolean) {
    return this.engine.jobStatePage(after, limit, recorded);
  }

  async jobsWithStatus(statuses: readonly JobStatus[]) {
    return this.engine.jobsWithStatus(statuses);
  }

  async inDoubtNamedByDelivery(): Promise<string[]> {
    return this.engine.jobsWithStatus(['in_doubt']).filter((row) => this.engine.lastAttempt(row.key)?.deliveredId).map((row) => row.key);
  }

  async lastAttempt(key: string) {
    return this.engine.lastAttempt(key);
  }

  async attempts(key: string) {
    return this.engine.attempts(key);
  }

  async attemptByHookToken(token: string) {
    return this.engine.attemptByHookToken(token);
  }

  async outputs(key: string) {
    return this.engine.outputs(key);
  }

  async outputsOf(keys: readonly string[]) {
    return this.engine.outputsOf(keys);
  }

  async outputsAtPath(path: string) {
    return this.engine.outputsAtPath(path);
  }

  async items(key: string) {
    return this.engine.items(key);
  }

  async allItems() {
    return this.engine.allItems();
  }

  money(jobs: PlanJobs) {
    return this.memo.moneyOf(jobs, async () => this.engine.money(jobs));
  }

  async retriesInRun(key: string) {
    return this.engine.retriesInRun(key);
  }

  async remoteIdsKnown(kind: StepKind, ids: readonly string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.engine.remoteIdKnown(kind, id)));
  }

  async remoteIdOwner(remoteId: string, exceptAttempt: number | null = null) {
    return this.engine.remoteIdOwner(remoteId, exceptAttempt);
  }

  async identity(location: string) {
    return this.engine.identity(location);
  }

  /** Commits what is queued, then closes the file; a second close does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.engine.settled();
    } finally {
      this.engine.close();
    }
  }
}
