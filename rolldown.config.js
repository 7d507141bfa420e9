import { defineConfig } from 'rolldown';

/**
 * The CLI as `reelpipe` runs it: tsc's dist/ (one file per source module) bundled into a few
 * chunks in dist/bundle/, entry dist/bundle/main.js (what bin/reelpipe.js loads).
 *
 * Why: Node loads an ES module graph a file at a time. The runner's graph is about 350 modules
 * (95 of them zod's), and loading them took 0.3 s of every run's start, a fifth of re-running a
 * finished 10,000-job manifest; bundled, it is a few dozen chunks. Commands still load their
 * modules on use: each dynamic import becomes its own chunk.
 *
 * Left outside (loaded from node_modules as before): better-sqlite3 (a native addon), pino and the
 * packages it starts in worker threads by file name, undici (loaded on the first request through
 * createRequire), execa (loaded when a hook runs) and pg (a CommonJS package, loaded only for a
 * PostgreSQL state).
 */
const EXTERNAL = ['better-sqlite3', 'pino', 'pino-pretty', 'thread-stream', 'sonic-boom', 'undici', 'execa', 'pg'];

export default defineConfig({
  input: 'dist/cli/main.js',
  platform: 'node',
  external: (id) => id.startsWith('node:') || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
  output: { dir: 'dist/bundle', format: 'esm', sourcemap: true, cleanDir: true },
  logLevel: 'warn',
});
