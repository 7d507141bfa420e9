#!/usr/bin/env node
// `npm run chaos`: a seeded soak proving reelpipe's money and durability promises under the
// hostile fault profile — 1,000 jobs, the runner SIGKILLed at random moments and the journalled
// sandbox SIGKILLed too, re-run until done — in polling mode, then webhook mode (--both), on the
// SQLite store and then on PostgreSQL (a throwaway server the harness starts, a fresh database per
// mode; --store picks one). With --hosts N every run is N members sharing it, on 2,000 jobs, and
// the PostgreSQL server is restarted once (--db-restarts). Prints every invariant PASS/FAIL with its figures, then one table of
// every verdict by store and mode; exits 1 if any failed. See docs/chaos.md.
import { rmSync, writeFileSync } from 'node:fs';
import { startPostgres } from './lib/postgres-server.js';
import { renderSoak, renderVerdicts, soakLabel } from './chaos/report.js';
import { USAGE, parseOptions } from './chaos/options.js';
import { keepStateCopy, recheck, runSoak } from './chaos/soak.js';

let options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

const soaks = [];
if (options.recheck) {
  const soak = await recheck(options.recheck, options.capGiven ? { cap: options.maxCredits === 'plan' ? undefined : options.maxCredits } : {});
  console.log(renderSoak(soak));
  soaks.push(soak);
}
let server;
try {
  for (const store of options.recheck ? [] : options.stores) {
    for (const mode of options.modes) soaks.push(await soakOnce(store, mode));
  }
} finally {
  server?.stop();
}

/** One soak: its state (a file in its workspace, or a database of its own), run, printed, kept or removed. */
async function soakOnce(store, mode) {
  let state;
  if (store === 'postgres') {
    server ??= await startPostgres();
    state = options.state ?? (await server.database(`chaos_${mode}`));
  }
  console.error(`chaos: ${store}, ${mode} mode, ${options.jobs} jobs, seed ${options.seed}, ${options.kills} timed + ${options.pointKills} point kills, ${options.sandboxKills} sandbox kills${options.hosts > 1 ? `, ${options.hosts} hosts a run` : ''}${store === 'postgres' && !options.state && options.dbRestarts > 0 ? `, ${options.dbRestarts} PostgreSQL restart(s)` : ''}${state ? `; state ${state}` : ''}`);
  // The database restarted mid-run only on a server the soak started (never a --state it was given).
  const restartDatabase = store === 'postgres' && !options.state && options.dbRestarts > 0 ? () => server.restart() : undefined;
  const soak = await runSoak(options, mode, { store, state, restartDatabase });
  const failed = soak.rows.some((r) => r.verdict === 'FAIL');
  // A failed soak keeps its workspace (state, journal, outputs, every run's stderr) to look into.
  soak.kept = failed || options.keep;
  if (soak.kept && state) {
    try {
      keepStateCopy(soak);
    } catch (error) {
      console.error(`chaos: the PostgreSQL state could not be copied into ${soak.dir}: ${error.message}`);
    }
  }
  if (!soak.kept) rmSync(soak.dir, { recursive: true, force: true });
  console.log(renderSoak(soak));
  return soak;
}

const allHeld = soaks.every((s) => s.rows.every((r) => r.verdict !== 'FAIL'));
if (soaks.length > 1) console.log(renderVerdicts(soaks));
console.log(`\n${allHeld ? 'every invariant held' : 'INVARIANTS FAILED'} (${soaks.map(soakLabel).join('; ')}; seed ${options.seed})`);
if (options.json) {
  const out = {
    options, held: allHeld,
    soaks: soaks.map(({ store, mode, rows, log, counts, doubt, wallMs, dir, kept }) => ({ store, mode, rows, log, counts, doubt, wallMs, dir: kept ? dir : null })),
  };
  writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
}
process.exit(allHeld ? 0 : 1);
