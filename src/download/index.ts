export * from './atomic-write.js';
export * from './content-types.js';
export * from './download-file.js';
export * from './fetch-output.js';
export * from './output-path.js';
export * from './write-inline.js';
