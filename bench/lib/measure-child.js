// Runs a command as a child process and measures it as the issue asks: wall time around the
// process, CPU time (user + system) and peak resident memory from GNU time (`/usr/bin/time -v`).
// Where there is no GNU time (macOS, a slim container), the node child reports its own usage on
// exit through a preloaded module instead (it then leaves out any process the child starts).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const GNU_TIME = '/usr/bin/time';
/** Kept of a child's stderr: the GNU time report is its end. */
const STDERR_TAIL = 64 * 1024;
const REPORT_USAGE = "data:text/javascript,import{writeFileSync}from'node:fs';process.on('exit',()=>writeFileSync(process.env.BENCH_USAGE_FILE,JSON.stringify(process.resourceUsage())))";

/** How the CPU and memory figures are taken on this machine. */
export const measuredBy = existsSync(GNU_TIME) ? 'GNU time -v' : 'process.resourceUsage (no GNU time)';

/** The figures of a GNU `time -v` report: CPU ms (user + system), peak RSS in MB, exit status. */
export function parseGnuTime(report) {
  const field = (label) => {
    const match = new RegExp(`${label}: ([\\d.]+)`).exec(report);
    return match ? Number(match[1]) : NaN;
  };
  const signal = /Command terminated by signal (\d+)/.exec(report);
  return {
    cpuMs: (field('User time \\(seconds\\)') + field('System time \\(seconds\\)')) * 1000,
    peakMb: field('Maximum resident set size \\(kbytes\\)') / 1024,
    exit: signal ? `signal ${signal[1]}` : field('Exit status'),
  };
}

/** The figures of a process.resourceUsage() record (µs of CPU, kB of RSS). */
export function parseResourceUsage(usage) {
  return { cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, peakMb: usage.maxRSS / 1024 };
}

/**
 * Runs `node ...args` (GNU time around it where there is one) in `cwd` with `env`, its stdout
 * into `stdoutFile` (default: discarded). Resolves with wallMs, cpuMs, peakMb, exit and the
 * stderr's last 64 kB, whatever the exit status.
 */
export async function runMeasured(args, { cwd, env = process.env, stdoutFile = '/dev/null' }) {
  const usageFile = path.join(tmpdir(), `reelpipe-bench-usage-${process.pid}-${Date.now()}.json`);
  const command = existsSync(GNU_TIME)
    ? [GNU_TIME, '-v', process.execPath, ...args]
    : [process.execPath, '--import', REPORT_USAGE, ...args];
  const out = openSync(stdoutFile, 'w');
  const started = performance.now();
  const child = spawn(command[0], command.slice(1), { cwd, env: { ...env, BENCH_USAGE_FILE: usageFile }, stdio: ['ignore', out, 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-STDERR_TAIL)));
  const [code, signal] = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c, s) => resolve([c, s]));
  });
  const wallMs = performance.now() - started;
  closeSync(out);
  if (existsSync(GNU_TIME)) return { wallMs, ...parseGnuTime(stderr), stderr };
  const usage = existsSync(usageFile) ? parseResourceUsage(JSON.parse(readFileSync(usageFile, 'utf8'))) : { cpuMs: NaN, peakMb: NaN };
  rmSync(usageFile, { force: true });
  return { wallMs, ...usage, exit: code ?? `signal ${signal}`, stderr };
}
