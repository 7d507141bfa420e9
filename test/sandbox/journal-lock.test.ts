import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LockedError } from '../../src/errors.js';
import { startSandbox } from '../../src/sandbox/index.js';

/** Real processes, each starting a sandbox on one journal through the compiled dist/. */
const HOLD = new URL('./fixtures/hold-journal.mjs', import.meta.url).pathname;

interface Holder {
  child: ChildProcess;
  /** `listening URL` or `refused CODE MESSAGE`. */
  first: string;
}

async function startHolder(journal: string): Promise<Holder> {
  const child = spawn('node', [HOLD, journal], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const [first] = (await once(lines, 'line')) as [string];
  return { child, first };
}

async function end(holder: Holder, how: 'stdin' | 'SIGKILL'): Promise<void> {
  const exited = once(holder.child, 'exit');
  if (how === 'stdin') holder.child.stdin!.end();
  else holder.child.kill('SIGKILL');
  await exited;
}

let dir: string;
let journal: string;
const running: Holder[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reelpipe-journal-lock-'));
  journal = join(dir, 'state', 'sandbox-service.jsonl');
});
afterEach(async () => {
  for (const holder of running.splice(0)) if (holder.child.exitCode === null && holder.child.signalCode === null) await end(holder, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
const hold = async () => {
  const holder = await startHolder(journal);
  running.push(holder);
  return holder;
};

describe('one sandbox writes a journal at a time', () => {
  test('a second process is refused at once, naming the journal, until the first closes it', async () => {
    const first = await hold();
    expect(first.first).toMatch(/^listening http:/);

    const second = await hold();
    expect(second.first).toMatch(/^refused LOCKED the sandbox journal .*sandbox-service\.jsonl is in use by another process/);
    await expect(startSandbox({ port: 0, journal })).rejects.toBeInstanceOf(LockedError);

    await end(first, 'stdin');
    const third = await hold();
    expect(third.first).toMatch(/^listening http:/);
  });

  test('a holder killed with SIGKILL leaves no stale lock behind', async () => {
    const first = await hold();
    expect(first.first).toMatch(/^listening/);
    await end(first, 'SIGKILL');

    const next = await hold();
    expect(next.first).toMatch(/^listening/);
  });
});
