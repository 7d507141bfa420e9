import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CLI, CLI_NODE_ARGS } from '../../bench/lib/service.js';

describe('the benchmarks run the CLI as its launcher runs', () => {
  test("with the node options on bin/reelpipe.js's shebang, then the launcher", () => {
    const shebang = readFileSync(CLI, 'utf8').split('\n')[0]!;
    expect(shebang.startsWith('#!/usr/bin/env -S node ')).toBe(true);
    expect(CLI_NODE_ARGS).toEqual([...shebang.slice('#!/usr/bin/env -S node '.length).split(' '), CLI]);
  });

  test('node takes those options, and the launcher run as a program gets them too', () => {
    const version = execFileSync(process.execPath, [...CLI_NODE_ARGS, '--version'], { encoding: 'utf8' });
    expect(execFileSync(CLI, ['--version'], { encoding: 'utf8' })).toBe(version);
  });
});
