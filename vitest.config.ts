import { defineConfig } from 'vitest/config';
import PlainSummaryReporter from './test/helpers/plain-summary-reporter.js';
import SlowFilesFirst from './test/helpers/slow-files-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: forks keep native better-sqlite3 handles and child processes isolated per file.
    pool: 'forks',
    // Why 3 on two cores: most files wait on child processes and loopback sockets, not the CPU;
    // vitest's default (cores - 1 = one worker) ran the suite one file at a time, ~9 of CI's minutes.
    maxWorkers: 3,
    // Each worker keeps its modules from one test file to the next: isolated, every file imported
    // src/ afresh (142 s of CPU in a 10-minute suite, 25 s without: the whole suite 624 → 585 s).
    // The tests share no global state to isolate: no module mocks, no global dispatcher, and no
    // environment variable left changed (the one test that sets TZ puts it back).
    isolate: false,
    reporters: ['default', new PlainSummaryReporter()],
    // The longest files first, by a whole run's measured durations: on a clean clone vitest has no
    // durations of its own and started a 55 s file last (test/helpers/slow-files-first.ts).
    sequence: { sequencer: SlowFilesFirst },
    // Installs what a fresh Debian machine lacks (chromium, postgresql-15), then starts the run's
    // one PostgreSQL server with a migrated template database.
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
