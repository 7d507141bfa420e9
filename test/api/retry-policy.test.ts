import { describe, expect, test } from 'vitest';
import { RETRY_RULES, judgeFailure, type AttemptFailure, type Effect } from '../../src/api/index.js';

const status = (code: number, retryAfterMs?: number): AttemptFailure => ({ kind: 'status', status: code, retryAfterMs });
const dropped: AttemptFailure = { kind: 'no-response', sent: true };
const refused: AttemptFailure = { kind: 'no-response', sent: false };

describe('judgeFailure', () => {
  test.each<[Effect, string, AttemptFailure, 'retry' | 'fail' | 'in-doubt']>([
    // Reads, replacing PUTs and DELETEs repeat safely: every transient failure is retried.
    ['reads', 'connection reset', dropped, 'retry'],
    ['reads', 'connection refused', refused, 'retry'],
    ['reads', '429', status(429), 'retry'],
    ['reads', '500', status(500), 'retry'],
    ['reads', '502', status(502), 'retry'],
    ['reads', '503 without Retry-After', status(503), 'retry'],
    ['reads', '504', status(504), 'retry'],
    ['replaces', 'connection reset', dropped, 'retry'],
    ['replaces', '500', status(500), 'retry'],
    ['deletes', 'connection reset', dropped, 'retry'],
    ['deletes', '503', status(503), 'retry'],
    // The service refused: the same request gets the same answer.
    ['reads', '400', status(400), 'fail'],
    ['reads', '401', status(401), 'fail'],
    ['reads', '403', status(403), 'fail'],
    ['reads', '404', status(404), 'fail'],
    ['creates', '400', status(400), 'fail'],
    ['creates', '401', status(401), 'fail'],
    ['creates', '402', status(402), 'fail'],
    ['creates', '409', status(409), 'fail'],
    ['creates', '301', status(301), 'fail'],
    // A creating POST is resent only when it provably made nothing.
    ['creates', 'connection refused before sending', refused, 'retry'],
    ['creates', '429', status(429), 'retry'],
    ['creates', '429 with Retry-After', status(429, 2000), 'retry'],
    ['creates', '503 with Retry-After', status(503, 5000), 'retry'],
    // Anything else after it may have arrived is in doubt.
    ['creates', 'connection reset after sending', dropped, 'in-doubt'],
    ['creates', '500', status(500), 'in-doubt'],
    ['creates', '502', status(502), 'in-doubt'],
    ['creates', '503 without Retry-After', status(503), 'in-doubt'],
    ['creates', '504', status(504), 'in-doubt'],
  ])('%s, %s → %s', (effect, _what, failure, action) => {
    expect(judgeFailure({ effect, failure }).action).toBe(action);
  });

  test('a server-advised wait travels with the verdict', () => {
    expect(judgeFailure({ effect: 'creates', failure: status(429, 1500) })).toMatchObject({ action: 'retry', retryAfterMs: 1500 });
    expect(judgeFailure({ effect: 'reads', failure: status(503, 4000) })).toMatchObject({ action: 'retry', retryAfterMs: 4000 });
  });

  test('every rule gives its reason', () => {
    const verdicts = [status(400), refused, status(429), status(503, 1), dropped].flatMap((failure) =>
      Object.values(RETRY_RULES).map((rule) => rule({ effect: 'creates', failure })).filter((v) => v !== undefined),
    );
    expect(verdicts.length).toBeGreaterThan(0);
    for (const verdict of verdicts) expect(verdict.reason).toMatch(/\w{4,}/);
  });
});
