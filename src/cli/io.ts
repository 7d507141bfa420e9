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
  return {
    stdout: closableWriter(process.stdout),
    stderr: closableWriter(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    // Read at each call: a terminal can be resized while a run draws its progress.
    stderrTerminal: () => (process.stderr.isTTY ? { columns: process.stderr.columns || 80, rows: process.stderr.rows || 24 } : undefined),
  };
}

/**
 * A reader that went away (`reelpipe logs … | head`, `run … 2>&1 | head`) closes the pipe: later
 * writes to that stream are dropped and the command ends with its own exit code. Why for stderr
 * too: a run must never die between a job's POST and its record because its log reader left.
 */
function closableWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let open = true;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    open = false;
  });
  return (text) => {
    if (open) stream.write(text);
  };
}
