import type { JobChange } from '../job-change.js';

export type { JobChange, NewJob } from '../job-change.js';

/** Where each change lands in the jobs table (all but `result`, which is kept in job_results). */
export const CHANGE_COLUMNS: Record<Exclude<keyof JobChange, 'result'>, string> = {
  remoteId: 'remote_id',
  remoteStatus: 'remote_status',
  creditsUsed: 'credits_used',
  creditsPrior: 'credits_prior',
  creditsReserved: 'credits_reserved',
  failedReason: 'failed_reason',
  doubtReason: 'doubt_reason',
  request: 'request',
  pathId: 'path_id',
  submittedAt: 'submitted_at',
  finishedAt: 'finished_at',
};
