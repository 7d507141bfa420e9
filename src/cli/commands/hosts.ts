import type { RegisterCommand } from './index.js';
import { printJson } from './output-flags.js';
import { addStateFlags, locateManifestState, type StateFlags } from '../state-flags.js';

/**
 * `reelpipe hosts MANIFEST [--json]`: the members of the manifest's newest run — on a state
 * several hosts share, every host's process that joined it (run/members.ts) — live or dead, last
 * heartbeat, jobs held. Read-only, no lock: it works while the run is going.
 */
export const registerHosts: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('hosts')
      .description("list the hosts (processes) sharing a manifest's newest run: live or dead, last heartbeat, jobs held")
      .argument('<manifest>', 'the manifest YAML file')
      .option('--json', 'print the members as JSON'),
  ).action(async (file: string, flags: StateFlags & { json?: boolean }) => {
    const { manifestId, statePath } = await locateManifestState(file, io, flags);
    const [{ stateAt }, { listMembers, renderHosts }] = await Promise.all([import('../../state/index.js'), import('../../report/render-hosts.js')]);
    const now = Date.now();
    const reader = stateAt(statePath);
    const members = listMembers(await reader.members(manifestId), now);
    // The state as shown (a PostgreSQL address without its password).
    if (flags.json) printJson(io, { manifest: manifestId, state: reader.location, members });
    else io.stdout(renderHosts(manifestId, reader.location, members, now));
  });
};
