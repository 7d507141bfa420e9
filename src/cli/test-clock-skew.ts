/**
 * TEST ONLY. `REELPIPE_TEST_CLOCK_OFFSET_MS=N` moves this process's wall clock N ms (negative: back),
 * as on a host whose clock is off: `Date.now()` and every timestamp made from it, never the
 * monotonic clock (`performance.now()`), as a skewed system clock would. The several-hosts tests
 * run members so skewed and check that nothing they share depends on it: leases, heartbeats and
 * takeovers are timed by the database's clock (docs/scale-out.md). Unset (always, outside tests):
 * nothing changes.
 */
export function skewClockForTests(env: NodeJS.ProcessEnv): void {
  const offset = Number(env.REELPIPE_TEST_CLOCK_OFFSET_MS ?? 0);
  if (!Number.isFinite(offset) || offset === 0 || skewed) return;
  skewed = true;
  const realNow = Date.now.bind(Date);
  Date.now = () => realNow() + offset;
}

let skewed = false;
