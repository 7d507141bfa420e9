import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { fileFault } from '../../src/cli/file-fault.js';

/** The error `run` throws, or the one it rejects with. */
const caught = async (run: () => unknown): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
};

test("a file system error is this machine's fault (exit 74), in one line naming the path and what to fix", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reelpipe-file-fault-'));
  try {
    symlinkSync(join(dir, 'gone'), join(dir, 'dangling'));
    const error = await caught(() => mkdirSync(join(dir, 'dangling', 'report'), { recursive: true }));
    const fault = fileFault(error, 'the report could not be written', 'its folder must be one reelpipe can make');
    expect(fault?.code).toBe('LOCAL_FAULT');
    expect(fault?.message).toBe(`the report could not be written: ENOENT: no such file or directory, mkdir '${join(dir, 'dangling', 'report')}'; its folder must be one reelpipe can make: fix it, then run the same command again`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a socket error (a code and a call, but no file) or any other error is not one', async () => {
  const refused = await caught(
    () =>
      new Promise((resolve, reject) => {
        // Port 1 on loopback: nothing listens there.
        const socket = connect({ host: '127.0.0.1', port: 1 }, () => resolve(socket.end()));
        socket.once('error', reject);
      }),
  );
  expect((refused as NodeJS.ErrnoException).syscall).toBe('connect');
  expect(fileFault(refused, 'x', 'y')).toBeUndefined();
  expect(fileFault(new Error('a bug'), 'x', 'y')).toBeUndefined();
  expect(fileFault(undefined, 'x', 'y')).toBeUndefined();
});
