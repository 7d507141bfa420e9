/** The planner: a manifest's jobs, keyed, priced, bound and ordered — pure, no I/O. */
export { planManifest, planStream, SANDBOX_OUTPUTS_SUFFIX, type PlanHead, type PlanOptions, type PlanStream } from './plan-manifest.js';
export { makesHtmlAds, usesAllStyles } from './style-catalogue.js';
export { actionOf, changedFields, renderActions, type ActionsView, type PlanAction } from './plan-actions.js';
export { fingerprintOf, planFileLines, type SavedPlan } from './saved-plan.js';
export { cutShort, PlanFileProblem, SavedPlanCheck, savedPlanHeader } from './saved-plan-check.js';
export { resolveJob, UnresolvedReferenceError } from './resolve.js';
export { apartParts, assertBudget, budgetLine, budgetView, jobStance, NOTHING_RECORDED, type BudgetView, type JobMoney, type RecordedMoney } from './budget.js';
export { unpricedWarnings } from './unpriced-warnings.js';
export { renderPlanTable, NEW, type PlanTableOptions, type StatusOf } from './render-table.js';
export { planToJson, planJsonChunks, type PlanJsonFrame, type RecordedJob, type RecordOf } from './plan-json.js';
export { estimateCredits, ESTIMATORS } from './estimate.js';
export { jobKey, canonicalJson } from './job-key.js';
export { findJob, jobIndex, jobsWhere, keysOf, listed, listOf, scopedJobs, type JobIndex } from './job-index.js';
export { formatCredits, plural } from '../util/format.js';
export { sanitiseStem } from './output-names.js';
export type { ListedPlan, Plan, PlanJobs, PlannedJob, StepPlan, CreditEstimate, CreditTotal, JobRef } from './types.js';
export { PlanIndex } from './plan-index.js';
