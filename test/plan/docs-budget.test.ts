import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

/** docs/manifest.md shows a real over-budget run; this reruns it, so the text cannot drift. */
test("the docs' over-budget example is what the CLI prints for it", async () => {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/manifest.md'), 'utf8');
  const block = /```console\n\$ reelpipe (plan [^\n]+)\n([\s\S]*?)\n\$ echo \$\?\n(\d+)\n```/.exec(doc);
  if (!block) throw new Error('docs/manifest.md has no `$ reelpipe plan …` console block');
  const [, command = '', output = '', code = ''] = block;
  const result = await runCli(command.split(' '));
  const printed = `${result.stdout}\n${result.stderr}`.replaceAll(REPO_ROOT, '/path/to/reelpipe/');
  expect([result.exitCode, printed]).toEqual([Number(code), output]);
});
