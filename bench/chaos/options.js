// `node bench/chaos.js` options. Defaults are the full soak of issues 8 and 11; --quick is the
// one-minute version `npm test` runs (test/e2e/chaos.test.ts).
import { parseArgs } from 'node:util';

export const USAGE = `usage: node bench/chaos.js [--both | --webhooks] [--store sqlite|postgres|both] [--state postgres://…]
       [--quick] [--jobs N] [--kills K] [--point-kills P]
       [--sandbox-kills M] [--seed S] [--max-credits N|plan|none] [--speed X] [--capacity N] [--rate N]
       [--kill-window MIN,MAX] [--max-reruns N] [--hosts N] [--db-restarts N] [--json FILE] [--keep]
       node bench/chaos.js --recheck DIR [--max-credits N] [--json FILE]   (judge a kept workspace again)`;

/**
 * The full soak. Why this speed and capacity: the sandbox then needs about 80 s of wall time to
 * render the 1,000 jobs (a floor no runner can beat), far more than the kill phase lasts (on
 * average 15 × 1.5 s + 5 short runs), so every kill lands on a run with work left.
 * @see docs/chaos.md
 */
const FULL = { jobs: 1000, kills: 15, pointKills: 5, sandboxKills: 2, killWindow: [0.5, 2.5], speed: 50, capacity: 12 };
/** Several hosts (issue 23): twice the jobs, so that three members at once still meet every kill with work left. */
const MEMBERS = { jobs: 2000 };
/** About half a minute per mode on two cores; a render floor of about 20 s against a kill phase of about 6 s. */
const QUICK = { jobs: 150, kills: 5, pointKills: 2, sandboxKills: 1, killWindow: [0.3, 1.5], speed: 40, capacity: 8 };

const number = (name, text, { whole = false, min = 0 } = {}) => {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || (whole && !Number.isInteger(value))) {
    throw new Error(`--${name} ${text}: use ${whole ? 'a whole number' : 'a number'} of at least ${min}`);
  }
  return value;
};

/** Parses argv into the soak's options; throws an Error naming the flag on a bad value. */
export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      both: { type: 'boolean' }, webhooks: { type: 'boolean' }, quick: { type: 'boolean' }, keep: { type: 'boolean' },
      jobs: { type: 'string' }, kills: { type: 'string' }, 'point-kills': { type: 'string' }, 'sandbox-kills': { type: 'string' },
      seed: { type: 'string' }, 'max-credits': { type: 'string' }, speed: { type: 'string' }, capacity: { type: 'string' },
      rate: { type: 'string' }, 'kill-window': { type: 'string' }, 'max-reruns': { type: 'string' }, json: { type: 'string' },
      help: { type: 'boolean' }, recheck: { type: 'string' }, store: { type: 'string' }, state: { type: 'string' }, hosts: { type: 'string' }, 'db-restarts': { type: 'string' },
    },
  });
  const hosts = values.hosts ? number('hosts', values.hosts, { whole: true, min: 1 }) : 1;
  // Several hosts share a run only on a state they all reach: PostgreSQL.
  if (hosts > 1 && values.store === undefined) values.store = 'postgres';
  if (hosts > 1 && values.store !== 'postgres') throw new Error(`--hosts ${hosts}: several hosts share one run on PostgreSQL only (--store postgres)`);
  const { stores, state } = storeOptions(values);
  const base = { ...(values.quick ? QUICK : FULL), ...(hosts > 1 && !values.quick ? MEMBERS : {}) };
  const dbRestarts = values['db-restarts'] ? number('db-restarts', values['db-restarts'], { whole: true }) : hosts > 1 && state === undefined ? 1 : 0;
  if (dbRestarts > 0 && !stores.includes('postgres')) throw new Error(`--db-restarts ${dbRestarts}: the soak restarts its PostgreSQL server (--store postgres)`);
  if (dbRestarts > 0 && state !== undefined) throw new Error(`--db-restarts ${dbRestarts}: the soak restarts only a server it started itself, not --state ${state}`);
  const window = values['kill-window']?.split(',').map((t) => number('kill-window', t)) ?? base.killWindow;
  if (window.length !== 2 || window[0] > window[1]) throw new Error(`--kill-window ${values['kill-window']}: use MIN,MAX in seconds, e.g. 0.5,3`);
  const cap = values['max-credits'] ?? 'plan';
  return {
    help: Boolean(values.help),
    recheck: values.recheck,
    capGiven: values['max-credits'] !== undefined,
    modes: values.both ? ['polling', 'webhooks'] : [values.webhooks ? 'webhooks' : 'polling'],
    /** The stores soaked, in order, each in every mode. @default ['sqlite', 'postgres'] (`--state`: postgres) */
    stores,
    /** A PostgreSQL database to soak in, made by the caller (the tests'); without it the harness starts a server of its own. */
    state,
    jobs: values.jobs ? number('jobs', values.jobs, { whole: true, min: 10 }) : base.jobs,
    kills: values.kills ? number('kills', values.kills, { whole: true }) : base.kills,
    pointKills: values['point-kills'] ? number('point-kills', values['point-kills'], { whole: true }) : base.pointKills,
    sandboxKills: values['sandbox-kills'] ? number('sandbox-kills', values['sandbox-kills'], { whole: true }) : base.sandboxKills,
    seed: values.seed ? number('seed', values.seed, { whole: true }) : 1,
    // 'plan': the plan's expected total; a number; or none.
    maxCredits: cap === 'none' ? null : cap === 'plan' ? 'plan' : number('max-credits', cap, { min: 1 }),
    /** Sandbox speed; the runner's waits are scaled by 1/speed. @default 50 (quick: 40) */
    speed: values.speed ? number('speed', values.speed, { min: 1 }) : base.speed,
    /** Sandbox render slots. @default 12 (quick: 8) */
    capacity: values.capacity ? number('capacity', values.capacity, { whole: true, min: 1 }) : base.capacity,
    /** The runner's starting request rate. @default 500 */
    rate: values.rate ? number('rate', values.rate, { min: 1 }) : 500,
    killWindow: window,
    /**
     * A run going longer is hung: SIGKILLed, and the soak fails as not coming to an end. Why 3
     * minutes for --quick: its longest run, a settling run in webhook mode waiting out jobs in
     * doubt, takes about 50 s on two busy cores; a hang must fail the soak with its report written
     * well inside the test's bound (test/e2e/chaos.test.ts), not leave the test without one.
     * @default 10 minutes (quick: 3)
     */
    runTimeoutMs: (values.quick ? 3 : 10) * 60_000,
    /** Re-runs without kills allowed before the soak fails as not settling. @default 12 */
    maxReruns: values['max-reruns'] ? number('max-reruns', values['max-reruns'], { whole: true, min: 1 }) : 12,
    /**
     * Members of each run of the kill phase (processes with a REELPIPE_HOST each, sharing the run):
     * one is killed, another may be paused past its lease; the cap and the concurrency are the
     * account's (`reelpipe account set`), which every member shares. @default 1
     */
    hosts,
    /**
     * The account's render slots with several hosts (`account set --concurrency`): six times the
     * sandbox's capacity. Why more than the capacity: under the hostile profile about a fifth of
     * the creations lose their answer, and a job in doubt keeps its slot for its slot life
     * (docs/scale-out.md: an hour × the time scale, 72 s at speed 50), so the slots cap the
     * members at about slots ÷ (a fifth × 72 s) creations a second: at twice the capacity (24) a
     * 2,000-job soak's settling run crawled at one job a second past the 10-minute bound; at six
     * times, about five a second.
     */
    accountSlots: 6 * (values.capacity ? number('capacity', values.capacity, { whole: true, min: 1 }) : base.capacity),
    /**
     * Restarts of the PostgreSQL server (pg_ctl restart -m fast: every connection dropped) during
     * seeded runs of the kill phase. @default 1 with several hosts on a server the soak started, else 0
     */
    dbRestarts,
    json: values.json,
    keep: Boolean(values.keep),
  };
}

const STORES = { sqlite: ['sqlite'], postgres: ['postgres'], both: ['sqlite', 'postgres'] };

/**
 * `--store` and `--state`. Why `--state` takes one mode only: a soak needs a state of its own, and
 * the harness makes one per mode only on the PostgreSQL server it starts itself.
 */
function storeOptions(values) {
  const state = values.state;
  if (state !== undefined) {
    if (!/^postgres(ql)?:\/\//i.test(state)) throw new Error(`--state ${state}: give a PostgreSQL database (postgres://USER@HOST:PORT/DB); a SQLite soak keeps its file in its workspace`);
    if (values.both) throw new Error('--state names one database: give one mode (no --both)');
    if (values.store !== undefined && values.store !== 'postgres') throw new Error(`--state is a PostgreSQL database: --store ${values.store} does not go with it`);
    return { stores: ['postgres'], state };
  }
  const stores = STORES[values.store ?? 'both'];
  if (!stores) throw new Error(`--store ${values.store}: use sqlite, postgres or both`);
  return { stores, state: undefined };
}
