export * from './job-status.js';
export * from './job-row.js';
export * from './events.js';
export * from './migrations.js';
export * from './open-db.js';
export * from './store.js';
export * from './lock.js';
export * from './job-statuses.js';
