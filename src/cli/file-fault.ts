import { LocalFaultError } from '../errors.js';

/**
 * An error of the file system (Node's, with the call that failed and its errno: a folder that
 * cannot be made — a link to nothing, a file in its place — no permission, a full disk) as this
 * machine's fault: exit 74, one line naming the path from Node's message and what to fix, never an
 * internal error with a stack. `what`: what could not be done ("the report could not be written");
 * `fix`: what the path must be. Undefined for any other error.
 */
export function fileFault(error: unknown, what: string, fix: string): LocalFaultError | undefined {
  // A path too: a socket's error (ECONNREFUSED from `connect`) has a code and a call but names no file.
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string' || typeof path !== 'string') return undefined;
  return new LocalFaultError(`${what}: ${(error as Error).message}; ${fix}: fix it, then run the same command again`, { cause: error });
}
