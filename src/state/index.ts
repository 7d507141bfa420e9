// The state's public door: the Store (its operations, and how to open it), the StateReader (what
// the commands that only look at it read), the rows they answer with, and the rules that hold
// whatever store keeps them. What speaks SQL stays in ./sqlite/ and ./postgres/; tests of a store itself
// reach into it directly.
export * from './store.js';
export * from './account-rules.js';
export * from './open-store.js';
export * from './state-reader.js';
export * from './stale-write.js';
export * from './job-status.js';
export * from './job-state-pages.js';
export * from './job-row.js';
export * from './job-change.js';
export * from './locate.js';
export { isPostgresAddress, rememberAddress, shownLocation } from './postgres/pg-url.js';
export * from './outputs-owner.js';
export { markRunFolder, seeRunFolder } from './run-folder.js';
export { memberLockName, RunTermsError, type RunMembers } from './run-members.js';
export { memberState, type MemberRow, type MemberState } from './member-rows.js';
export * from './lock/lock-policy.js';
export * from './lock/acquire-lock.js';
export * from './lock/lock-wait.js';
export * from './lock/lock-holder.js';
export { LockLostError } from './lock/fence.js';
export type { EventType, EventRow } from './sqlite/events.js';
export { scrubSecrets, readEvents } from './sqlite/events.js';
export { isLocalFault } from './sqlite/local-fault.js';
export { FORGET_REFUSED, type ForgetResult } from './sqlite/forget-job.js';
export type { HookName, HookResult, HookRunRow, HookRunState, HookTarget } from './hook-run-rows.js';
export type { JobItemRow } from './item-rows.js';
export type { CreditPair, MoneySums, MoneyTotals } from './money-sums.js';
export type { JobCosts, JobFigures } from './job-costs.js';
export type { RecordedJobMoney, JobMoneyRow } from './recorded-money.js';
export type { CachedCatalogue } from './catalogue-rows.js';
export type { RefusedStart } from './sqlite/refused-start.js';
export type { AttemptRecord } from './attempt-records.js';
export { slotOf } from './plan-scope.js';
export type { FactsRead as StateFacts, FactsRow, RecordedOutput } from './facts-rows.js';
export type { RunListRow, RunRecord } from './sqlite/run-reads.js';
export type { RunWork } from './sqlite/run-work.js';
// Kept for the tests and tools that inspect an SQLite state file directly.
export { MIGRATIONS, migrate, SCHEMA_VERSION } from './sqlite/migrations.js';
export { openStateDb, openStateDbReadOnly } from './sqlite/open-db.js';
export { readAttemptsByJob } from './sqlite/attempt-history.js';
// `reelpipe state copy`: a whole state, table by table, from one store to another.
export { copyState, type CopyReport } from './copy/copy-state.js';
export { openTables } from './copy/open-tables.js';
