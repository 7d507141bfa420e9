import { describe, expect, test } from 'vitest';
import { progressMode } from '../../../src/report/progress/mode.js';

describe('how progress shows: decided in one place', () => {
  test.each([
    ['a terminal', { isTTY: true, env: { TERM: 'xterm-256color' } }, 'live'],
    ['a terminal with no TERM set', { isTTY: true, env: {} }, 'live'],
    ['a dumb terminal (no cursor movement)', { isTTY: true, env: { TERM: 'dumb' } }, 'plain'],
    ['a pipe, a file, cron', { isTTY: false, env: { TERM: 'xterm' } }, 'plain'],
    ['--quiet, even on a terminal', { quiet: true, isTTY: true, env: {} }, 'quiet'],
    ['REELPIPE_PROGRESS=plain on a terminal', { isTTY: true, env: { REELPIPE_PROGRESS: 'plain' } }, 'plain'],
    ['REELPIPE_PROGRESS=live on a pipe', { isTTY: false, env: { REELPIPE_PROGRESS: ' Live ' } }, 'live'],
    ['--quiet wins over REELPIPE_PROGRESS', { quiet: true, isTTY: false, env: { REELPIPE_PROGRESS: 'live' } }, 'quiet'],
  ])('%s: %s', (_, options, mode) => {
    expect(progressMode(options)).toBe(mode);
  });

  test('an unknown REELPIPE_PROGRESS is a usage error naming what is accepted', () => {
    expect(() => progressMode({ isTTY: true, env: { REELPIPE_PROGRESS: 'fancy' } })).toThrow('REELPIPE_PROGRESS=fancy: unknown progress mode; use live or plain (or leave it unset)');
  });
});
