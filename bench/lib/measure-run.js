// One measured run of one client against the separate sandbox: the child's wall time, CPU and
// peak memory (measure-child.js), the requests the sandbox counted, and the makespan against the
// ideal from the sandbox's own job histories (figures.js).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { requestCounts, serviceTiming } from './figures.js';
import { runMeasured } from './measure-child.js';
import { scratchDir } from './scratch.js';
import { clientEnv, startService } from './service.js';

/** Every file under `dir` whose name ends with `ext`: how many, their bytes, the newest mtime. */
export function filesUnder(dir, ext) {
  const found = { count: 0, bytes: 0, newestMs: NaN };
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(ext)) continue;
    const stat = statSync(path.join(entry.parentPath ?? entry.path, entry.name));
    found.count++;
    found.bytes += stat.size;
    found.newestMs = Number.isNaN(found.newestMs) ? stat.mtimeMs : Math.max(found.newestMs, stat.mtimeMs);
  }
  return found;
}

/**
 * Runs `client` in `dir` against `service` on `work` ({ kind, jobs, concurrency, timeScale,
 * capacity }) and returns its figures. The makespan runs from the first creation the service
 * recorded to the newest output file on disk (the last job done and downloaded): start-up and
 * the report written at the end are in the wall time, not in the makespan. Those two apart:
 * `beforeFirstPostMs` from the process's start to the first creation, `afterLastFileMs` from the
 * newest output file to the process's end (start-up, planning and state before; report after).
 */
export async function measureClient(service, client, dir, work) {
  const before = await service.stats();
  const args = await client.prepare({ dir, ...work });
  const startedMs = Date.now();
  const child = await runMeasured(args, { cwd: dir, env: clientEnv(service.url), stdoutFile: path.join(dir, 'stdout.txt') });
  const endedMs = Date.now();
  const after = await service.stats();
  const timing = serviceTiming(await service.jobs(), work.capacity);
  const requests = requestCounts(before, after);
  const files = filesUnder(path.join(dir, 'out'), '.mp4');
  const makespanMs = files.newestMs - timing.firstCreatedMs;
  return {
    client: client.name,
    jobs: work.jobs,
    exit: child.exit,
    wallMs: child.wallMs,
    cpuMs: child.cpuMs,
    peakMb: child.peakMb,
    cpuPerJobMs: child.cpuMs / work.jobs,
    requests,
    apiPerJob: requests.api / work.jobs,
    downloadsPerJob: requests.downloads / work.jobs,
    webhooks: after.webhooks.delivered - before.webhooks.delivered,
    created: Object.values(after.created).reduce((a, b) => a + b, 0) - Object.values(before.created).reduce((a, b) => a + b, 0),
    duplicates: after.duplicates.total - before.duplicates.total,
    ...timing,
    files: files.count,
    makespanMs,
    makespanRatio: makespanMs / timing.idealMs,
    beforeFirstPostMs: timing.firstCreatedMs - startedMs,
    afterLastFileMs: endedMs - files.newestMs,
    wallRatio: child.wallMs / timing.idealMs,
    stateBytes: filesUnder(path.join(dir, 'state'), '').bytes,
    stdoutTail: readFileSync(path.join(dir, 'stdout.txt'), 'utf8').slice(-600),
    stderrTail: child.stderr.slice(-600),
  };
}

/** A run on a fresh sandbox (stopped afterwards) in a fresh scratch folder (see scratch.js). */
export async function freshRun(client, work, { speed, seed = 1 }) {
  const service = await startService({ speed, capacity: work.capacity, seed });
  try {
    return await measureClient(service, client, scratchDir('run'), work);
  } finally {
    await service.stop();
  }
}

/** Says what looks wrong with a run (a bad exit, missing files, unfinished or duplicate jobs). */
export function runProblems(run) {
  const problems = [];
  if (run.exit !== 0) problems.push(`exit ${run.exit}`);
  if (run.created !== run.jobs) problems.push(`${run.created} jobs created for ${run.jobs}`);
  if (run.duplicates > 0) problems.push(`${run.duplicates} duplicate creations`);
  if (run.unfinished > 0) problems.push(`${run.unfinished} jobs unfinished at the service`);
  if (run.files !== run.jobs) problems.push(`${run.files} files on disk for ${run.jobs} jobs`);
  return problems;
}

/**
 * `rounds` rounds of `clients` on `work`, taking turns within each round (a machine busier at one
 * moment weighs on all of them), each run on a fresh sandbox; prints a line per run (`runLine`,
 * then `more(run)`, then what looks wrong) and returns every run, its round on it.
 */
export async function roundsOf(clients, work, { speed, rounds, line, more = () => '' }) {
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    for (const client of clients) {
      const run = { round, ...(await freshRun(client, work, { speed })) };
      runs.push(run);
      const problems = runProblems(run);
      console.log(`  round ${round}, ${line(run)}${more(run)}${problems.length ? `  PROBLEM: ${problems.join(', ')}` : ''}`);
    }
  }
  return runs;
}
