/** Where a command writes. Commands never touch process.stdout directly, so tests can capture. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stderr's size when it is a terminal; undefined for a pipe, a file, a test. @default undefined */
  stderrTerminal?: () => { columns: number; rows: number } | undefined;
}

export function processIo(): CliIo {
  // A reader that went away (`reelpipe logs … | head`) closes the pipe: later writes are dropped
  // and the command ends with its own exit code, instead of crashing on EPIPE.
  let stdoutOpen = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutOpen = false;
  });
  return {
    stdout: (text) => void (stdoutOpen && process.stdout.write(text)),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    // Read at each call: a terminal can be resized while a run draws its progress.
    stderrTerminal: () => (process.stderr.isTTY ? { columns: process.stderr.columns || 80, rows: process.stderr.rows || 24 } : undefined),
  };
}
