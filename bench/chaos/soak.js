// One soak in one mode (polling or webhooks): a journalled hostile sandbox, the manifest, then
//
//   kill phase   runs of `reelpipe run`, each SIGKILLed at a seeded moment (timed) or made to
//                SIGKILL itself at a seeded named instant (point); the sandbox is SIGKILLed
//                during or right after some of them and started again on its journal, same port;
//                with `dbRestarts`, the PostgreSQL server is restarted during seeded runs too;
//   settle phase runs without kills until the exit code is one running again cannot change
//                (anything but 4; 3 too once a run under the cap moved nothing), at most
//                `maxReruns` of them — more fails the soak loudly;
//
// then the evidence is read and judged (invariants.js). Every choice comes from the seed; only
// where a timed kill lands depends on the machine. The state is a SQLite file in the workspace or
// a PostgreSQL database the caller made for this soak alone (the same seed, the same kills).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { FAULT_PROFILES } from '../../dist/sandbox/index.js';
import { isPostgres } from '../lib/postgres-server.js';
import { readService, readState } from './evidence.js';
import { countBy, doubtSummary, judge } from './invariants.js';
import { writeManifest } from './manifest.js';
import { seededRandom } from './random.js';
import { runOnce } from './runner-process.js';
import { createLink, freePort, introspect, killProcess, startSandboxProcess } from './sandbox-process.js';

const CLI = fileURLToPath(new URL('../../bin/reelpipe.js', import.meta.url));
/** Instants the runner's test hook can SIGKILL it at (src/run/kill-hook.ts). */
const KILL_POINTS = ['before-post', 'after-post', 'after-poll', 'mid-download', 'after-download'];
const log = (line) => process.stderr.write(`${line}\n`);

/**
 * Runs one soak on `store` ('sqlite' or 'postgres'); `state` is the PostgreSQL database's URL (a
 * fresh one: the soak's alone), or undefined for a SQLite file in the workspace. Resolves with
 * { store, mode, dir, rows, log, counts, wallMs }.
 */
export async function runSoak(options, mode, { store = 'sqlite', state, restartDatabase } = {}) {
  const started = performance.now();
  const rng = seededRandom(options.seed * 2 + (mode === 'webhooks' ? 1 : 0));
  const dir = mkdtempSync(path.join(tmpdir(), `reelpipe-chaos-${store}-${mode}-`));
  const ws = await prepare(options, dir, state);
  const soakLog = { store, mode, seed: options.seed, runs: [], finalCode: null, peakCharged: 0, settled: false, hung: 0, faults: {}, dbRestarts: 0 };
  ws.restartDatabase = restartDatabase;
  const sampler = sampleCharges(ws, soakLog);
  try {
    const runner = runnerFor(options, ws, mode);
    await killPhase(options, ws, runner, rng, soakLog);
    await settlePhase(options, runner, ws, soakLog);
    sampler.stop();
    await sampler.sample();
    addCounts(soakLog.faults, (await introspect(ws.url, 'stats')).faults);
    const judged = await judgeWorkspace(describe(ws, options, store), soakLog, ws.url);
    return { store, mode, dir, ...judged, log: soakLog, wallMs: performance.now() - started };
  } finally {
    sampler.stop();
    await killProcess(ws.sandbox.child, 'SIGTERM');
  }
}

/** The workspace: profile file, a link made on a quiet start, the hostile sandbox, manifest, plan. */
async function prepare(options, dir, state = path.join(dir, 'state', 'reelpipe.db')) {
  mkdirSync(path.join(dir, 'logs'));
  const profile = path.join(dir, 'hostile.json');
  // Every hostile rate, but 429/503 say Retry-After 0 instead of 1 s: that changes no outcome,
  // only how long the client waits (real seconds, not divided by the sandbox's speed).
  writeFileSync(profile, JSON.stringify({ ...FAULT_PROFILES.hostile, retryAfterSeconds: 0 }));
  const port = await freePort();
  const base = { port, speed: options.speed, capacity: options.capacity, credits: 10_000_000, seed: options.seed, journal: path.join(dir, 'service.jsonl'), cwd: dir };
  // The link is made before any fault is on: a lost answer could leave the harness's own link in doubt.
  const quiet = await startSandboxProcess(CLI, { ...base, faults: 'none' });
  const linkId = await createLink(quiet.url);
  await killProcess(quiet.child, 'SIGTERM');
  const ws = { dir, port, base, profile, linkId, statePath: state, outputsDir: path.join(dir, 'out') };
  ws.sandbox = await startSandboxProcess(CLI, { ...base, faults: profile });
  ws.url = ws.sandbox.url;
  ws.manifest = writeManifest(dir, options.jobs, linkId);
  const plan = JSON.parse(execFileSync(process.execPath, [CLI, 'plan', ws.manifest, '--json', '--state', ws.statePath], { cwd: dir, maxBuffer: 2 ** 28 }).toString());
  ws.plan = { keys: plan.jobs.map((j) => j.key), expected: plan.totals.creditsEstimated };
  ws.cap = options.maxCredits === 'plan' ? ws.plan.expected : options.maxCredits;
  // Members on several hosts share the account's cap and render slots (a manifest's own cap is one process's).
  if (options.hosts > 1) {
    // More than the sandbox's render slots: jobs in doubt keep theirs (options.js says why).
    ws.accountSlots = options.accountSlots;
    const limits = ['--concurrency', String(ws.accountSlots), ...(ws.cap === null ? [] : ['--max-credits', String(ws.cap)])];
    execFileSync(process.execPath, [CLI, 'account', 'set', '--state', ws.statePath, ...limits], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return ws;
}

/** What judging a workspace needs, kept in soak.json so `--recheck DIR` can judge it again. */
function describe(ws, options, store) {
  return {
    store, dir: ws.dir, statePath: ws.statePath, outputsDir: ws.outputsDir, journal: ws.base.journal, plan: ws.plan, cap: ws.cap, linkId: ws.linkId,
    ...(ws.accountSlots ? { accountSlots: ws.accountSlots } : {}),
    asked: { kills: options.kills, pointKills: options.pointKills, sandboxKills: options.sandboxKills, maxReruns: options.maxReruns, dbRestarts: ws.restartDatabase ? options.dbRestarts : 0 },
  };
}

/** Reads the evidence of a workspace, judges it, and writes DIR/soak.json. */
async function judgeWorkspace(workspace, soakLog, url) {
  const evidence = {
    plan: workspace.plan, state: await readState(workspace.statePath), service: await readService(url), outputsDir: workspace.outputsDir,
    harnessIds: new Set([workspace.linkId]), cap: workspace.cap, log: soakLog, accountSlots: workspace.accountSlots,
  };
  evidence.stats = evidence.service.stats;
  const rows = [...judge(evidence), ...soakRows(workspace.asked, soakLog)];
  const counts = countBy(evidence.state.rows, (r) => r.status);
  const doubt = doubtSummary(evidence);
  writeFileSync(path.join(workspace.dir, 'soak.json'), `${JSON.stringify({ workspace, log: soakLog, rows, counts, doubt }, null, 2)}\n`);
  return { rows, counts, doubt, stats: evidence.stats };
}

/**
 * Judges a kept workspace again (after a soak, or after a test tampered with it), on a sandbox
 * replaying its journal. `cap` (when given) replaces the soak's own.
 */
export async function recheck(dir, { cap } = {}) {
  const saved = JSON.parse(readFileSync(path.join(dir, 'soak.json'), 'utf8'));
  const workspace = { ...saved.workspace, ...(cap !== undefined ? { cap } : {}) };
  const sandbox = await startSandboxProcess(CLI, { port: 0, speed: 1, capacity: 1, credits: 0, seed: 1, faults: 'none', journal: workspace.journal, cwd: dir });
  try {
    const judged = await judgeWorkspace(workspace, saved.log, sandbox.url);
    return { store: saved.workspace.store ?? storeOf(workspace.statePath), mode: `${saved.log.mode} (recheck)`, dir, ...judged, log: saved.log, wallMs: 0, kept: true };
  } finally {
    await killProcess(sandbox.child, 'SIGTERM');
  }
}

const storeOf = (location) => (isPostgres(location) ? 'postgres' : 'sqlite');

/**
 * A kept PostgreSQL soak's state, copied into its workspace as DIR/state/reelpipe.db (`reelpipe
 * state copy`, every table, counts and credits checked): the throwaway server goes with the
 * harness, and `--recheck DIR` then judges the copy. soak.json keeps where it came from.
 */
export function keepStateCopy(soak) {
  const file = path.join(soak.dir, 'soak.json');
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  if (!isPostgres(saved.workspace.statePath)) return;
  const copy = path.join(soak.dir, 'state', 'reelpipe.db');
  mkdirSync(path.dirname(copy), { recursive: true });
  execFileSync(process.execPath, [CLI, 'state', 'copy', saved.workspace.statePath, copy], { cwd: soak.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  saved.workspace = { ...saved.workspace, statePath: copy, copiedFrom: saved.workspace.statePath };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`);
}

/**
 * SIGKILLs the sandbox and starts it again on its journal, on the same port. Its fault counts
 * restart from zero with it (docs/sandbox.md), so the last ones seen are kept in `soakLog.faults`
 * first (a request answered between that look and the kill is missed: the total is a floor).
 */
async function restartSandbox(ws, soakLog) {
  await introspect(ws.url, 'stats').then((stats) => addCounts(soakLog.faults, stats.faults), () => undefined);
  await killProcess(ws.sandbox.child, 'SIGKILL');
  ws.sandbox = await startSandboxProcess(CLI, { ...ws.base, faults: ws.profile });
}

function addCounts(total, counts) {
  for (const [name, n] of Object.entries(counts ?? {})) total[name] = (total[name] ?? 0) + n;
  return total;
}

/** A function running `reelpipe run` once with the soak's flags and extra env. */
function runnerFor(options, ws, mode) {
  const env = { ...process.env, REELPIPE_BASE_URL: ws.url, REELPIPE_API_ID: 'chaos-id', REELPIPE_API_KEY: 'chaos-key', REELPIPE_LOG_LEVEL: 'warn' };
  delete env.REELPIPE_TEST_KILL_AT;
  const args = ['run', ws.manifest, '--state', ws.statePath, '--time-scale', String(1 / options.speed), '--rate', String(options.rate)];
  // With several hosts the cap is the account's (prepare); a short lease makes takeovers quick.
  if (ws.cap !== null && options.hosts === 1) args.push('--max-credits', String(ws.cap));
  if (options.hosts > 1) args.push('--lease', '2s');
  const hookPorts = mode === 'webhooks' ? Array.from({ length: options.hosts }, () => freePort()) : undefined;
  return async (n, { killAfterMs, point, during, pause, host = 0 } = {}) => {
    const port = hookPorts && (await hookPorts[host]);
    const hooks = port ? ['--webhook-listen', `127.0.0.1:${port}`, '--webhook-public-url', `http://127.0.0.1:${port}`] : [];
    const extra = { ...(point ? { REELPIPE_TEST_KILL_AT: point } : {}), ...(options.hosts > 1 ? { REELPIPE_HOST: `chaos-${host + 1}` } : {}) };
    const stderrFile = path.join(ws.dir, 'logs', `run-${String(n).padStart(3, '0')}${options.hosts > 1 ? `-host-${host + 1}` : ''}.stderr`);
    return runOnce({ cli: CLI, args: [...args, ...hooks], cwd: ws.dir, env: { ...env, ...extra }, stderrFile, killAfterMs, during, pause, timeoutMs: options.runTimeoutMs });
  };
}

/**
 * One run of the kill phase on several hosts: every member started at once, the round's kill
 * (timed or point) on one of them, the others SIGKILLed later (between the window's end and twice
 * it, seeded: else two members would finish the whole batch in the first round), and — every other
 * round, seeded — one of the others paused past its lease and resumed first. Each member's end is
 * recorded; the others' timed kills that land count as timed kills.
 */
async function membersRun(options, runner, rng, soakLog, kill) {
  const victim = rng.int(0, options.hosts - 1);
  const paused = rng.next() < 0.5 ? (victim + 1 + rng.int(0, options.hosts - 2)) % options.hosts : -1;
  const n = soakLog.runs.length + 1;
  const later = () => Math.round(rng.between(options.killWindow[1], 2 * options.killWindow[1]) * 1000);
  const results = await Promise.all(Array.from({ length: options.hosts }, (_, host) => runner(n + host, {
    host,
    ...(host === victim ? { killAfterMs: kill.killAfterMs, point: kill.point } : { killAfterMs: later() }),
    // The sandbox's kill on the first member's watch, the database's restart on the second's.
    during: Object.fromEntries(Object.entries(kill.during).filter(([name]) => (name === 'database' ? 1 % options.hosts : 0) === host)),
    ...(host === paused ? { pause: { afterMs: Math.round(rng.between(0.2, options.killWindow[1]) * 1000), forMs: 3_000 } } : {}),
  })));
  results.forEach((result, host) => {
    if (host !== victim) record(soakLog, result, { phase: 'kill', kill: `member chaos-${host + 1}${result.killed ? ': timed, later' : ''}${host === paused ? ' (paused 3 s, past its 2 s lease)' : ''}` });
  });
  return { result: results[victim], victim, others: results.filter((_, host) => host !== victim) };
}

/**
 * Runs until `kills` timed and `pointKills` point kills have landed (a kill lands when the run
 * dies of it), with the sandbox SIGKILLed at `sandboxKills` seeded runs. A run that ends by
 * itself with nothing left to do ends the phase early (the soak then reports too few kills).
 */
async function killPhase(options, ws, runner, rng, soakLog) {
  const want = { timed: options.kills, point: options.pointKills };
  const landed = { timed: 0, point: 0 };
  const plannedRuns = want.timed + want.point;
  // With several hosts a round is a run of each member, so fewer rounds are needed: the sandbox's
  // kills fall among those (else they could be planned past the last round).
  const rounds = Math.max(Math.ceil(plannedRuns / options.hosts), 1);
  const sandboxAt = new Set(rng.pick(rounds, options.sandboxKills));
  // Drawn only when asked, so a soak without database restarts keeps the same seeded choices.
  const databaseAt = new Set(options.dbRestarts > 0 && ws.restartDatabase ? rng.pick(rounds, options.dbRestarts) : []);
  for (let i = 0; landed.timed < want.timed || landed.point < want.point; i++) {
    if (i >= 3 * plannedRuns + 3) break;
    const needPoint = landed.point < want.point;
    const needTimed = landed.timed < want.timed;
    const point = needPoint && (!needTimed || rng.next() < want.point / plannedRuns)
      ? `${KILL_POINTS[rng.int(0, KILL_POINTS.length - 1)]}:${rng.int(1, 12)}` : undefined;
    // A point kill's run is SIGKILLed at four times the window's end if it never reaches its point
    // (a later run may have no POST left to make): no run of this phase ends by itself while work
    // is left. Why four, not two: on a loaded machine a PostgreSQL run's start (the plan recorded
    // with each job's record, 9aaeccf) took most of 3 s, and a quick soak in CI ran out of tries
    // with one of its two point kills landed.
    const killAfterMs = Math.round((point ? 4 * options.killWindow[1] : rng.between(options.killWindow[0], options.killWindow[1])) * 1000);
    const sandboxDelay = Math.round(rng.between(0.2, options.killWindow[1]) * 1000);
    const during = {
      ...(sandboxAt.has(i) ? { sandbox: { afterMs: sandboxDelay, action: async ({ midRun }) => (await restartSandbox(ws, soakLog), midRun ? 'mid-run' : 'after the run') } } : {}),
      ...(databaseAt.has(i) ? { database: { afterMs: Math.round(rng.between(0.2, options.killWindow[1]) * 1000), action: async ({ midRun }) => (await ws.restartDatabase(), midRun ? 'mid-run' : 'after the run') } } : {}),
    };
    const members = options.hosts > 1 ? await membersRun(options, runner, rng, soakLog, { killAfterMs, point, during }) : undefined;
    const result = members ? members.result : await runner(soakLog.runs.length + 1, { killAfterMs, point, during });
    const selfKilled = Boolean(point) && result.signal === 'SIGKILL' && !result.killed && !result.hung;
    if (result.killed) landed.timed++;
    landed.timed += (members?.others ?? []).filter((r) => r.killed).length;
    if (selfKilled) landed.point++;
    const kill = selfKilled ? `point ${point}` : result.killed ? `timed ${killAfterMs} ms${point ? ` (point ${point} not reached)` : ''}` : `timed ${killAfterMs} ms: the run ended first`;
    record(soakLog, result, { phase: 'kill', kill: members ? `member chaos-${members.victim + 1}: ${kill}` : kill });
    const ended = (r) => r.signal === null && r.code !== 4 && r.code !== 3;
    if (ended(result) && (members?.others ?? []).every(ended)) break;
  }
  soakLog.kills = { timed: landed.timed, point: landed.point, wanted: want };
  soakLog.sandboxKills = soakLog.runs.filter((r) => r.sandbox).length;
  soakLog.dbRestarts = soakLog.runs.filter((r) => r.database).length;
}

/** Re-runs without kills until the code is final; fails the soak (settled: false) past the bound. */
async function settlePhase(options, runner, ws, soakLog) {
  let before = await statusCounts(ws);
  for (let i = 0; i < options.maxReruns; i++) {
    const result = await runner(soakLog.runs.length + 1);
    record(soakLog, result, { phase: 'settle' });
    const after = await statusCounts(ws);
    const moved = JSON.stringify(after) !== JSON.stringify(before);
    before = after;
    if (result.hung || result.signal) continue;
    // 4: running again moves work on. 3 under a cap: again only while the last run moved something.
    if (result.code === 4 || (result.code === 3 && moved)) continue;
    soakLog.settled = true;
    break;
  }
  const last = soakLog.runs.at(-1);
  soakLog.finalCode = last?.code ?? null;
}

function record(soakLog, result, extra) {
  const { sandbox, database } = result.during ?? {};
  const run = { n: soakLog.runs.length + 1, ...extra, code: result.code, signal: result.signal, ms: Math.round(result.ms), ...(sandbox ? { sandbox } : {}), ...(database ? { database } : {}) };
  if (result.hung) soakLog.hung++;
  soakLog.runs.push(run);
  log(`  [${soakLog.store ?? 'sqlite'} ${soakLog.mode}] run ${run.n} (${run.phase}): ${run.signal ?? `exit ${run.code}`} after ${(run.ms / 1000).toFixed(1)} s` +
    `${run.kill ? ` — ${run.kill}` : ''}${run.sandbox ? ` — sandbox SIGKILLed ${run.sandbox} and restarted on its journal` : ''}` +
    `${run.database ? ` — PostgreSQL restarted ${run.database}` : ''}`);
}

async function statusCounts(ws) {
  try {
    return countBy((await readState(ws.statePath)).rows, (r) => r.status);
  } catch {
    return {};
  }
}

/** Samples the service's net charge every 200 ms, keeping the highest seen (the budget's peak). */
function sampleCharges(ws, soakLog) {
  const sample = async () => {
    try {
      const { credits, alive } = await introspect(ws.url, 'stats');
      soakLog.peakCharged = Math.max(soakLog.peakCharged, credits.charged - credits.refunded);
      soakLog.peakAlive = Math.max(soakLog.peakAlive ?? 0, alive?.peak ?? 0);
    } catch {
      // The sandbox is down for a restart: the next sample sees the same ledger, replayed.
    }
  };
  const timer = setInterval(sample, 200);
  return { sample, stop: () => clearInterval(timer) };
}

/** The soak's own conditions: it really killed what it was asked to, and it came to an end. */
function soakRows(options, soakLog) {
  const { kills } = soakLog;
  const killsOk = kills.timed >= options.kills && kills.point >= options.pointKills;
  return [
    {
      name: 'soak: runner SIGKILLs landed',
      verdict: killsOk ? 'PASS' : 'FAIL',
      figures: `${kills.timed} timed of ${options.kills} asked, ${kills.point} at named instants of ${options.pointKills} asked` +
        `${killsOk ? '' : ' (the work finished first: lower --speed or narrow --kill-window)'}`,
      detail: {},
    },
    {
      name: 'soak: sandbox SIGKILLs landed',
      verdict: soakLog.sandboxKills >= options.sandboxKills ? 'PASS' : 'FAIL',
      figures: `${soakLog.sandboxKills} of ${options.sandboxKills} asked (${soakLog.runs.filter((r) => r.sandbox === 'mid-run').length} mid-run), each restarted on its journal`,
      detail: {},
    },
    ...(options.dbRestarts > 0 ? [{
      name: 'soak: PostgreSQL restarts landed',
      verdict: soakLog.dbRestarts >= options.dbRestarts ? 'PASS' : 'FAIL',
      figures: `${soakLog.dbRestarts} of ${options.dbRestarts} asked (${soakLog.runs.filter((r) => r.database === 'mid-run').length} mid-run), pg_ctl restart -m fast: every connection dropped`,
      detail: {},
    }] : []),
    {
      name: 'soak: came to an end',
      verdict: soakLog.settled && soakLog.hung === 0 ? 'PASS' : 'FAIL',
      figures: soakLog.settled
        ? `final code after ${soakLog.runs.filter((r) => r.phase === 'settle').length} re-runs (bound ${options.maxReruns}), ${soakLog.hung} hung runs`
        : `NOT SETTLED after ${options.maxReruns} re-runs: exit codes ${soakLog.runs.filter((r) => r.phase === 'settle').map((r) => r.code ?? r.signal).join(', ')}; ${soakLog.hung} hung runs`,
      detail: {},
    },
  ];
}
