export * from './rules.js';
export * from './spoken-length.js';
