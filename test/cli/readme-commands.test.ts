import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { expect, test } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { processIo } from '../../src/cli/io.js';
import { REPO_ROOT } from '../helpers/cli.js';

test("the README's commands table names every command the CLI has, and no other", () => {
  const program = new Command('reelpipe');
  // One io, as main() makes: each adds its EPIPE listener to process.stdout and stderr.
  const io = processIo();
  for (const register of COMMANDS) register(program, io, () => undefined);
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Commands'), readme.indexOf('## Configuration'));
  const listed = [...section.matchAll(/^\| `reelpipe (\w+)/gm)].map((m) => m[1]);
  expect(listed.sort()).toEqual(program.commands.map((c) => c.name()).sort());
});

test.each([
  ['README.md', '## Exit codes'],
  ['docs/cron.md', '## Alerting on exit codes'],
])("%s's exit-code table lists exactly the codes the CLI exits with", (file, heading) => {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const section = text.slice(text.indexOf(heading), text.indexOf('\n## ', text.indexOf(heading) + heading.length));
  const listed = [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
  expect(listed.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
});
