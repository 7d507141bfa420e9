import { defineConfig } from 'vitest/config';
import PlainSummaryReporter from './test/helpers/plain-summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: forks keep native better-sqlite3 handles and child processes isolated per file.
    pool: 'forks',
    reporters: ['default', new PlainSummaryReporter()],
  },
});
