import type { ServiceClient } from '../../api/index.js';
import type { SandboxRuns } from '../../state/locate.js';
import type { CliIo } from '../io.js';

/**
 * Runs `fn` with a client of the service — from REELPIPE_BASE_URL / _ID / _KEY; with `sandbox`
 * true, of an embedded sandbox started for the purpose (as `run --sandbox` does); with a `url`,
 * of the standalone sandbox there (as `run --sandbox-url` does) — and closes both afterwards.
 * `source` names what was asked, for the output (never a credential).
 */
export async function withServiceClient<T>(io: CliIo, sandbox: SandboxRuns, fn: (client: ServiceClient, source: string) => Promise<T>): Promise<T> {
  const api = await import('../../api/index.js');
  if (sandbox !== true) {
    const { resolveSandbox, standaloneSandboxClient } = await import('../../run/open-service.js');
    const standalone = sandbox ? await resolveSandbox(sandbox) : undefined;
    const client = standalone?.url !== undefined ? standaloneSandboxClient(standalone.url, io.env) : api.clientFromEnv(io.env);
    try {
      return await fn(client, standalone?.url !== undefined ? `the sandbox at ${standalone.url}` : (io.env.REELPIPE_BASE_URL ?? '').trim());
    } finally {
      await client.close();
    }
  }
  const { startSandbox } = await import('../../sandbox/index.js');
  // Seed 1, as `run --sandbox` uses: the same catalogues and fixtures a sandbox run meets.
  const service = await startSandbox({ port: 0, seed: 1 });
  const client = api.createClient({ baseUrl: service.url, apiId: 'sandbox-id', apiKey: 'sandbox-key' });
  try {
    return await fn(client, 'the embedded sandbox');
  } finally {
    await client.close();
    await service.close();
  }
}
