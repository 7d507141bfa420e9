import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { HookArg } from '../../src/manifest/types.js';
import { hookEnv, renderArgs } from '../../src/run/hooks/hook-args.js';
import { runCommand, TAIL_BYTES } from '../../src/run/hooks/run-command.js';

/** Hooks run tiny real node scripts: no shell, bounded output, a timeout, and no credentials. */
const NODE = process.execPath;
const ENV = { PATH: process.env.PATH ?? '', REELPIPE_API_ID: 'acct-id-1234', REELPIPE_API_KEY: 'super-secret-key', UPLOAD_TOKEN: 'tok-5678' };
const ph = (ns: 'row' | 'env' | 'job', name: string) => ({ ns, name, text: `{{ ${ns}.${name} }}` });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-hooks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (argv: string[], env: Record<string, string> = hookEnv(ENV, 'on_output', {}), timeoutMs = 30_000) =>
  runCommand(argv, { cwd: dir, env, timeoutMs, secrets: [ENV.REELPIPE_API_ID, ENV.REELPIPE_API_KEY] });

describe('arguments', () => {
  test.each([
    ['command substitution', 'a $(touch pwned) b'],
    ['backticks', '`touch pwned`'],
    ['quotes', `"double" 'single'`],
    ['a newline', 'line one\nline two'],
    ['a path out', '../../x'],
    ['globs and separators', '*; rm -rf / && echo | cat > pwned'],
  ])('a value with %s stays one argument, verbatim, and runs nothing', async (_, value) => {
    const argv: HookArg[] = [[NODE], ['-e'], ['require("fs").writeFileSync("args.json", JSON.stringify(process.argv.slice(1)))'], ['<', ph('row', 'text'), '>']];
    const rendered = renderArgs(argv, { row: { text: value } }, ENV);
    const result = await run(rendered.argv);
    expect(result).toMatchObject({ ok: true, exitCode: 0 });
    expect(JSON.parse(readFileSync(join(dir, 'args.json'), 'utf8'))).toEqual([`<${value}>`]);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });

  test('the recorded form keeps {{ env.X }} as written; credentials are redacted in both forms', () => {
    const argv: HookArg[] = [['upload'], ['--token=', ph('env', 'UPLOAD_TOKEN')], [ph('row', 'note')]];
    const { argv: real, shown } = renderArgs(argv, { row: { note: 'key is super-secret-key' } }, ENV);
    expect(real).toEqual(['upload', '--token=tok-5678', 'key is [REDACTED]']);
    expect(shown).toEqual(['upload', '--token={{ env.UPLOAD_TOKEN }}', 'key is [REDACTED]']);
  });

  test('a value the job lacks (no row, no such field) is empty text', () => {
    expect(renderArgs([['x', ph('row', 'sku'), 'y'], [ph('job', 'remote_id')]], { job: { remote_id: null } }, ENV).argv).toEqual(['xy', '']);
  });
});

describe('the environment', () => {
  test('is the run\'s less the credentials, plus REELPIPE_HOOK and REELPIPE_NS_FIELD values', async () => {
    const env = hookEnv(ENV, 'on_output', { job: { key: 'shorts:abc', label: 'S1' }, output: { path: '/o/S1.mp4' } });
    const result = await run([NODE, '-e', 'console.log(JSON.stringify(process.env))'], env);
    const seen = JSON.parse(result.stdoutTail) as Record<string, string>;
    expect(seen).toMatchObject({ REELPIPE_HOOK: 'on_output', REELPIPE_JOB_KEY: 'shorts:abc', REELPIPE_JOB_LABEL: 'S1', REELPIPE_OUTPUT_PATH: '/o/S1.mp4', UPLOAD_TOKEN: 'tok-5678' });
    expect(Object.keys(seen)).not.toContain('REELPIPE_API_KEY');
    expect(Object.keys(seen)).not.toContain('REELPIPE_API_ID');
  });
});

describe('how a command ends', () => {
  test.each([
    ['a non-zero exit', [NODE, '-e', 'console.error("bucket missing"); process.exit(3)'], { ok: false, exitCode: 3, timedOut: false, error: null, stderrTail: 'bucket missing\n' }],
    ['a missing command', ['./no-such-hook'], { ok: false, exitCode: null, error: 'command not found: ./no-such-hook' }],
    ['a signal', [NODE, '-e', 'process.kill(process.pid, "SIGTERM")'], { ok: false, exitCode: null, signal: 'SIGTERM', error: 'ended by SIGTERM' }],
    ['a success', [NODE, '-e', 'console.log("uploaded")'], { ok: true, exitCode: 0, signal: null, error: null, stdoutTail: 'uploaded\n' }],
  ])('%s', async (_, argv, expected) => {
    expect(await run(argv)).toMatchObject(expected);
  });

  test('past its timeout it is stopped, and has failed', async () => {
    const result = await run([NODE, '-e', 'setInterval(() => {}, 1000)'], undefined, 300);
    expect(result).toMatchObject({ ok: false, timedOut: true, exitCode: null, error: 'stopped after its timeout of 0.3 s' });
  });

  test('only the last few KB of a chatty command are kept, credentials redacted', async () => {
    const script = 'for (let i = 0; i < 20000; i++) console.log(`line ${i} super-secret-key`); console.error("the end")';
    const result = await run([NODE, '-e', script]);
    expect(result.ok).toBe(true);
    expect(Buffer.byteLength(result.stdoutTail)).toBeLessThanOrEqual(TAIL_BYTES);
    expect(result.stdoutTail.trimEnd().split('\n').at(-1)).toBe('line 19999 [REDACTED]');
    expect(result.stdoutTail).not.toContain('super-secret-key');
    expect(result.stderrTail).toBe('the end\n');
  });
});
