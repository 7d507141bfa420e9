import { InvalidArgumentError } from 'commander';
import { ACCOUNT_PERIODS, type AccountChange, type AccountPeriod } from '../../state/account-rules.js';
import { UsageError } from '../../errors.js';
import { STATE_FLAG_HELP } from '../state-flags.js';
import type { Store } from '../../state/index.js';
import type { CliIo } from '../io.js';
import type { RegisterCommand } from './index.js';
import { printJson } from './output-flags.js';

/**
 * `reelpipe account set|show`: the limits every manifest on one state shares, because they spend
 * one service account (state/account-rules.ts). `set` changes only the flags given (`none` clears
 * one); `show` lists the limits and, per manifest and in total, spent, held, slots in use and the
 * hosts whose runs are live. The state: --state, else REELPIPE_STATE, else state/reelpipe.db
 * under the working directory (a project's default state).
 */
export const registerAccount: RegisterCommand = (program, io) => {
  const account = program.command('account').description("the limits every manifest on a state shares: one account's slots, credits and rate");
  const stateHelp = `${STATE_FLAG_HELP.state.replace(/ \(default:.*$/, '')} (default: REELPIPE_STATE, else state/reelpipe.db here)`;
  account
    .command('set')
    .description('set the account limits (a flag not given is left as it is; none clears it)')
    .option('--state <path>', stateHelp)
    .option('--concurrency <n>', 'jobs alive at the service at once, across every manifest and host (none: no limit)', limit('--concurrency', true))
    .option('--max-credits <n>', 'credits the account may spend, across every manifest (none: no cap)', limit('--max-credits', false))
    .option('--per <period>', `the cap's period, in UTC: ${ACCOUNT_PERIODS.join(', ')} (none: every charge ever counts)`, period)
    .option('--rate <r>', 'requests a second to the service, shared by the live runs (none: each run its own)', limit('--rate', false))
    .action(async (flags: { state?: string } & AccountChange) => {
      const change: AccountChange = {};
      for (const field of ['concurrency', 'maxCredits', 'per', 'rate'] as const) if (flags[field] !== undefined) Object.assign(change, { [field]: flags[field] });
      if (Object.keys(change).length === 0) throw new UsageError('nothing to set: give --concurrency, --max-credits, --per or --rate (none clears one)');
      await withStore(await stateLocation(io, flags.state), async (store, location) => {
        await store.setAccount(change);
        await show(io, store, location, false);
      });
    });
  account
    .command('show')
    .description('the account limits, and what counts against them per manifest and in total')
    .option('--state <path>', stateHelp)
    .option('--json', 'print the account as JSON')
    .action(async (flags: { state?: string; json?: boolean }) => {
      const location = await stateLocation(io, flags.state);
      const [{ existsSync }, { isPostgresAddress }] = await Promise.all([import('node:fs'), import('../../state/index.js')]);
      if (!isPostgresAddress(location) && !existsSync(location)) {
        io.stdout(`no state database at ${location}: the account limits nothing yet (reelpipe account set)\n`);
        return;
      }
      await withStore(location, (store, shown) => show(io, store, shown, flags.json === true));
    });
};


/** The state the command works on: --state (or REELPIPE_STATE, put there by main.ts), else the working directory's state/reelpipe.db. */
async function stateLocation(io: CliIo, state: string | undefined): Promise<string> {
  const [{ resolve }, { isPostgresAddress }] = await Promise.all([import('node:path'), import('../../state/index.js')]);
  return state === undefined ? resolve(io.cwd, 'state', 'reelpipe.db') : isPostgresAddress(state) ? state : resolve(io.cwd, state);
}

/** The account as `show` prints it: text, or JSON. */
async function show(io: CliIo, store: Store, location: string, json: boolean): Promise<void> {
  const [{ accountText, accountJson }, { SLOT_LIVES }] = await Promise.all([import('../../report/account-text.js'), import('../../run/submit/account-gate.js')]);
  const view = await store.accountView(SLOT_LIVES);
  if (json) printJson(io, accountJson(view, location));
  else io.stdout(accountText(view, location));
}

/** Opens the state at `location` for `body`, which is given it as shown (credentials hidden), and closes it. */
async function withStore(location: string, body: (store: Store, location: string) => Promise<void>): Promise<void> {
  const { openStore, shownLocation } = await import('../../state/index.js');
  const store = await openStore(location);
  try {
    await body(store, shownLocation(location));
  } finally {
    await store.close();
  }
}

/** A positive number (an integer for `integer`), or `none`: null. */
function limit(flag: string, integer: boolean): (text: string) => number | null {
  return (text) => {
    if (text.trim().toLowerCase() === 'none') return null;
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`${flag} takes ${integer ? 'a whole number' : 'a number'} above 0, or none; got ${JSON.stringify(text)}`);
    }
    return n;
  };
}

function period(text: string): AccountPeriod | null {
  const value = text.trim().toLowerCase();
  if (value === 'none') return null;
  if (!ACCOUNT_PERIODS.includes(value as AccountPeriod)) throw new InvalidArgumentError(`--per takes ${ACCOUNT_PERIODS.join(', ')} or none; got ${JSON.stringify(text)}`);
  return value as AccountPeriod;
}
