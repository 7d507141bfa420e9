import { memberState, type MemberRow } from '../state/index.js';
import { plural } from '../util/format.js';
import { formatDuration } from '../util/time-format.js';

/** A member as `hosts --json` gives it: its row, and where it stands at `now`. */
export type ListedMember = MemberRow & { state: ReturnType<typeof memberState> };

export const listMembers = (rows: readonly MemberRow[], now: number): ListedMember[] => rows.map((row) => ({ ...row, state: memberState(row, now) }));

/**
 * `reelpipe hosts` for people: the manifest's newest run and a line per member (host, pid, its
 * own run row, where it stands, its last heartbeat, the jobs it holds), then what the states mean.
 */
export function renderHosts(manifest: string, statePath: string, members: readonly ListedMember[], now: number): string {
  if (members.length === 0) return `${manifest} (state ${statePath}): no runs yet\n`;
  const live = members.filter((m) => m.state === 'busy' || m.state === 'idle').length;
  const lines = [`${manifest} (state ${statePath}): run ${members[0]!.run}, ${plural(members.length, 'member')} (${live} live)`];
  const rows = members.map((m) => [
    m.host, String(m.pid), String(m.runId), m.state,
    m.heartbeatAt === null ? '—' : `${formatDuration(Math.max(0, (m.readAt ?? now) - m.heartbeatAt))} ago`,
    String(m.held),
    m.outcome ?? '',
  ]);
  const header = ['HOST', 'PID', 'RUN ROW', 'STATE', 'HEARTBEAT', 'JOBS HELD', 'OUTCOME'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  for (const row of [header, ...rows]) lines.push(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ').trimEnd());
  lines.push('busy/idle: live (idle: nothing left to claim, it stays while another is busy); lapsed: no heartbeat within its lease, its jobs go to the next member that claims; gone: died, its lock broken; left: finished its share');
  return `${lines.join('\n')}\n`;
}
