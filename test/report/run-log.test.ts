import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openRunLog, runLogPath } from '../../src/report/run-log.js';
import { stateFiles } from '../../src/state/index.js';
import { RunEvents } from '../../src/run/run-events.js';

const SECRET = 'sk-live-9f8e7d6c5b4a';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-runlog-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function openLog(env: NodeJS.ProcessEnv = { REELPIPE_API_KEY: SECRET }) {
  const events = new RunEvents();
  const labels = new Map([['shorts:1', 'short-TR1']]);
  const log = openRunLog({ files: { folder: join(dir, 'state'), name: 'reelpipe' }, runId: 7, host: 'cron-1', env, events, labelOf: (key) => labels.get(key), version: '9.9.9' });
  const lines = () => readFileSync(log.file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { events, log, lines };
}

describe("a run's log file", () => {
  // In state/logs/ of the manifest's project, whatever the state's location: named for the state.
  test.each([
    ['state/reelpipe.db', 12, 'state/logs/12.ndjson'],
    ['state/sandbox.db', 12, 'state/logs/sandbox-12.ndjson'],
    ['/elsewhere/custom.db', 3, 'state/logs/custom-3.ndjson'],
    // A state several hosts share: each member's log names its host.
    ['postgres://reelpipe@db.internal:5432/nightly', 8, 'state/logs/pg-db.internal-5432-nightly-8-cron_2.ndjson'],
  ])('%s, run %i: %s', (db, id, expected) => {
    writeFileSync(join(dir, 'package.json'), '{}');
    const files = stateFiles(join(dir, 'pipelines', 'nightly.yaml'), db.startsWith('/') || db.startsWith('postgres') ? db : join(dir, db));
    expect(runLogPath(files, id, 'cron/2')).toBe(join(dir, expected));
  });

  test("every line carries the run id; a job's lines its key and label; each event is a line", () => {
    const { events, log, lines } = openLog();
    events.emit('job:status', { key: 'shorts:1', step: 'shorts', kind: 'ai_short', status: 'submitted', remoteId: 'r-1' });
    events.emit('job:status', { key: 'shorts:1', step: 'shorts', kind: 'ai_short', status: 'failed', detail: 'render failed' });
    events.emit('run:stopping', { reason: 'budget', message: 'the cap' });
    events.emit('run:stopping', { reason: 'interrupted', cause: 'SIGINT', message: 'no new jobs are sent' });
    events.emit('run:finished', { runId: 7, outcome: 'JOBS_FAILED' });
    log.close();
    expect(log.file).toBe(join(dir, 'state', 'logs', '7.ndjson'));
    expect(lines().map(({ time: _, ...line }) => line)).toEqual([
      { level: 30, runId: 7, key: 'shorts:1', label: 'short-TR1', step: 'shorts', kind: 'ai_short', dbStatus: 'submitted', remoteId: 'r-1', msg: 'submitted' },
      { level: 40, runId: 7, key: 'shorts:1', label: 'short-TR1', step: 'shorts', kind: 'ai_short', dbStatus: 'failed', remoteId: null, detail: 'render failed', msg: 'failed' },
      { level: 40, runId: 7, reason: 'budget', msg: 'stopping: the cap' },
      { level: 40, runId: 7, reason: 'interrupted', msg: 'stopping (SIGINT): no new jobs are sent' },
      { level: 40, runId: 7, outcome: 'JOBS_FAILED', msg: 'run finished' },
    ]);
  });

  test('the jobs a run starts with are one line: how many, and how many in each state', () => {
    const { events, log, lines } = openLog();
    events.emit('run:jobs', { counts: { downloaded: 2, in_doubt: 1 }, planned: 1, joined: false });
    log.close();
    expect(lines().map(({ time: _, ...line }) => line)).toEqual([
      { level: 30, runId: 7, jobs: 4, states: { done: 2, 'not submitted': 1, 'in doubt': 1 }, msg: 'jobs at start' },
    ]);
  });

  test('credentials never reach the file, however they come', () => {
    const { events, log } = openLog({ REELPIPE_API_KEY: SECRET, REELPIPE_API_ID: 'acct-id-5566' });
    log.logger.error({ headers: { 'x-api-key': SECRET }, url: `https://x/?k=${encodeURIComponent(SECRET)}` }, `refused ${SECRET} for acct-id-5566`);
    events.emit('run:note', { message: `key ${SECRET}` });
    log.close();
    const text = readFileSync(log.file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('acct-id-5566');
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(4);
  });

  test('debug by default; REELPIPE_LOG_LEVEL lowers or raises it', () => {
    const quiet = openLog({ REELPIPE_LOG_LEVEL: 'warn' });
    quiet.log.logger.debug('request');
    quiet.log.logger.info('note');
    quiet.log.logger.warn('in doubt');
    quiet.log.close();
    expect(quiet.lines().map((l) => l.msg)).toEqual(['in doubt']);
  });

  test('a file left under the same name (a database replaced since) is moved aside, never appended to', () => {
    mkdirSync(join(dir, 'state', 'logs'), { recursive: true });
    writeFileSync(join(dir, 'state', 'logs', '7.ndjson'), '{"old":true}\n');
    const { log, lines } = openLog();
    log.logger.info('new');
    log.close();
    expect(lines().map((l) => l.msg)).toEqual(['new']);
    const aside = readdirSync(join(dir, 'state', 'logs')).filter((name) => name.startsWith('7.replaced-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, 'state', 'logs', aside[0]!), 'utf8')).toBe('{"old":true}\n');
  });

  test('closing stops the recording', () => {
    const { events, log } = openLog();
    log.close();
    events.emit('run:note', { message: 'after' });
    expect(existsSync(log.file) && readFileSync(log.file, 'utf8')).toBe('');
  });
});
