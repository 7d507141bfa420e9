import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

const version = (JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as { version: string }).version;

describe('the command-line entry', () => {
  test('--version prints the package version and exits 0', async () => {
    const result = await runCli(['--version']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  test('--help lists the commands and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: reelpipe');
  });

  test('an unknown command exits 2 with a one-line hint', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
    expect(result.stderr).toContain("Run 'reelpipe --help'");
  });
});
