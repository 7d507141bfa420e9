import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { SandboxOptions } from '../../sandbox/index.js';
import type { RegisterCommand } from './index.js';

const number = (flag: string, accepted: string) => (text: string) => {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${flag} ${text}: not a number; ${accepted}`);
  return value;
};

interface Flags {
  host: string; port: number; speed: number; capacity: number; credits: number; seed: number; faults: string;
  apiId?: string; apiKey?: string; outputTtl: number; allowWebhooksAnywhere?: boolean; insufficientCredits: 'refuse' | 'fail';
  journal?: string;
}

/** Resolves on the first SIGINT or SIGTERM. */
const stopSignal = () =>
  new Promise<string>((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

/**
 * `reelpipe sandbox`: the local service. Prints exactly one line to stdout once it listens, so a
 * script can read the URL; warnings (a webhook not sent) go to stderr. Stops cleanly on SIGINT or
 * SIGTERM and exits 0.
 */
export const registerSandbox: RegisterCommand = (program: Command, io) => {
  program
    .command('sandbox')
    .description('run the local sandbox service: every operation, credits, outputs, webhooks and fault profiles')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port; 0 picks a free one', number('--port', 'use 0 to 65535'), 0)
    .option('--speed <x>', 'divides every duration of the life cycles', number('--speed', 'use a number above 0'), 1)
    .option('--capacity <n>', 'render slots; jobs beyond them wait in_queue', number('--capacity', 'use a whole number from 1'), 4)
    .option('--credits <n>', 'starting balance', number('--credits', 'use a number from 0'), 10_000)
    .option('--seed <n>', 'seed of every random choice', number('--seed', 'use a whole number'), 1)
    .option('--faults <profile>', 'none, flaky, hostile or FILE.json', 'none')
    .option('--api-id <id>', 'accept only this API ID (with --api-key)')
    .option('--api-key <key>', 'accept only this API key (with --api-id)')
    .option('--output-ttl <s>', 'seconds an output URL stays valid', number('--output-ttl', 'use a number above 0'), 3600)
    .option('--allow-webhooks-anywhere', 'deliver webhooks to any host, not only loopback')
    .addOption(new Option('--insufficient-credits <mode>', 'when the balance is short: refuse the POST (402) or fail the job').choices(['refuse', 'fail']).default('refuse'))
    .option('--journal <file>', 'keep every state change in FILE (JSON lines) and replay it on start, so jobs survive a restart')
    .action(async (flags: Flags) => {
      // Loaded on use, so other commands start without the sandbox's modules.
      const [{ pino }, { startSandbox }] = await Promise.all([import('pino'), import('../../sandbox/index.js')]);
      const options: SandboxOptions = {
        host: flags.host, port: flags.port, speed: flags.speed, capacity: flags.capacity, credits: flags.credits, seed: flags.seed,
        faults: flags.faults, apiId: flags.apiId, apiKey: flags.apiKey, outputTtlSeconds: flags.outputTtl,
        allowWebhookHosts: flags.allowWebhooksAnywhere ? 'any' : 'loopback', insufficientCredits: flags.insufficientCredits,
        journal: flags.journal === undefined ? undefined : resolve(io.cwd, flags.journal),
        logger: pino({ level: 'warn', base: undefined }, pino.destination({ dest: 2, sync: true })),
      };
      const sandbox = await startSandbox(options);
      io.stdout(`sandbox listening on ${sandbox.url}\n`);
      await stopSignal();
      await sandbox.close();
    });
};
