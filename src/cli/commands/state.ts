import type { RegisterCommand } from './index.js';

/**
 * `reelpipe state copy FROM TO`: copies a whole state — SQLite to PostgreSQL and back — into an
 * empty TO, and checks it (every table's rows and the money's sums, equal on both sides). Exit 0
 * when copied; 2 when refused (TO not empty, FROM locked by a run, a bad address), nothing written;
 * 74 when a database cannot be reached. FROM is left as it is: point --state (or REELPIPE_STATE)
 * at TO from then on, and keep FROM as a backup.
 */
export const registerState: RegisterCommand = (program, io) => {
  const state = program.command('state').description('work on a state as a whole (copy it from one store to another)');
  state
    .command('copy')
    .description('copy a state into an empty one: an SQLite file to PostgreSQL (postgres://USER@HOST:PORT/DB) or back')
    .argument('<from>', 'the state to copy: an SQLite file or a PostgreSQL address')
    .argument('<to>', 'an empty state: a new SQLite file or an empty PostgreSQL database')
    .action(async (from: string, to: string) => {
      const { copyState, openTables } = await import('../../state/index.js');
      const source = await openTables(from, io.cwd, 'FROM');
      try {
        const report = await copyState(source, () => openTables(to, io.cwd, 'TO'));
        const rows = report.rows.filter((r) => r.table !== 'meta').map((r) => `${r.table} ${r.count}`).join(', ');
        io.stdout(`copied ${report.from} → ${report.to}\n  rows: ${rows} (the same on both sides)\n`);
        io.stdout(`  credits: ${report.credits.charged} charged, ${report.credits.refunded} refunded, ${report.credits.used} used by jobs (the same on both sides)\n`);
        io.stdout(`From now on give --state ${report.to} (or REELPIPE_STATE); ${report.from} is left as it was.\n`);
      } finally {
        await source.close();
      }
    });
};
