import { execa } from 'execa';
import { describe, expect, test } from 'vitest';
import { CLI, REPO_ROOT, runCli } from '../../helpers/cli.js';
import { AUTH } from '../helpers.js';

/** `reelpipe sandbox` as a user runs it: a real child process (needs `npm run build`). */
describe('reelpipe sandbox', () => {
  test.each([['SIGTERM'], ['SIGINT']] as const)('prints one listening line, serves, and exits 0 on %s', async (signal) => {
    const child = execa('node', [CLI, 'sandbox', '--port', '0', '--speed', '1000', '--credits', '77'], { cwd: REPO_ROOT, reject: false });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out);
      });
      child.once('exit', () => reject(new Error(`exited before listening: ${out}`)));
    });
    expect(line).toMatch(/^sandbox listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const url = line.trim().split(' ').pop()!;
    const credits = await fetch(`${url}/api/remaining_credits/`, { headers: AUTH });
    expect(await credits.json()).toEqual({ remaining_credits: 77 });
    child.kill(signal);
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(line.trimEnd());
  });

  test.each([
    [['--speed', '0'], /speed: 0 is not accepted/],
    [['--capacity', '1.5'], /capacity: 1.5 is not accepted/],
    [['--port', 'abc'], /--port abc: not a number/],
    [['--faults', 'chaotic'], /unknown fault profile "chaotic"/],
    [['--api-id', 'only-id'], /apiId and apiKey go together/],
    [['--faults', 'missing.json'], /missing\.json {2}cannot read the fault profile/],
  ])('%j is refused with exit 2 before listening', async (args, message) => {
    const result = await runCli(['sandbox', ...args]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});
