export * from './rules.js';
export * from './spoken-length.js';
export * from './stated-length.js';
