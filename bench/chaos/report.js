// The soak's printed report: the invariant table (PASS/FAIL with figures), then what happened;
// after every soak, one table of each invariant's verdict per store and mode.

const STORE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** `PostgreSQL, webhooks`: a soak's store and mode, as its report and the closing table name it. */
export const soakLabel = (soak) => `${STORE_NAMES[soak.store] ?? soak.store ?? 'SQLite'}, ${soak.mode}`;

/** Text of one soak's report. */
export function renderSoak(soak) {
  const width = Math.max(...soak.rows.map((r) => r.name.length));
  const lines = [`\n## chaos soak — ${soakLabel(soak)} mode`, ''];
  for (const row of soak.rows) lines.push(`${row.verdict.padEnd(4)}  ${row.name.padEnd(width)}  ${row.figures}`);
  for (const row of soak.rows.filter((r) => r.verdict === 'FAIL')) {
    lines.push('', `FAIL ${row.name}: ${JSON.stringify(row.detail)}`);
  }
  const { log } = soak;
  const codes = log.runs.map((r) => (r.signal ? 'K' : String(r.code)));
  lines.push(
    '',
    `runs: ${log.runs.length} (${log.runs.filter((r) => r.phase === 'kill').length} in the kill phase, ${log.runs.filter((r) => r.phase === 'settle').length} settling)`,
    `runner SIGKILLs: ${log.kills.timed} timed, ${log.kills.point} at named instants; sandbox SIGKILLs: ${log.sandboxKills}`,
    `exit codes in order (K = SIGKILL): ${codes.join(' ')}`,
    `jobs by status: ${Object.entries(soak.counts).map(([s, n]) => `${s} ${n}`).join(', ')}`,
    `held in doubt for a person: ${soak.doubt.held} (${Object.entries(soak.doubt.byKind).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}) — ` +
      `${soak.doubt.exist} exist at the service (answer lost), ${soak.doubt.neverSent} never reached it`,
    `service: created ${JSON.stringify(soak.stats.created)}`,
    `faults injected (over every start of the sandbox): ${JSON.stringify(soak.log.faults)}`,
    `wall time: ${(soak.wallMs / 1000).toFixed(1)} s; workspace: ${soak.kept ? soak.dir : '(removed)'}`,
  );
  return lines.join('\n');
}

/** Every invariant (rows) by store and mode (columns), each cell its verdict; the wall time below. */
export function renderVerdicts(soaks) {
  const names = [...new Set(soaks.flatMap((soak) => soak.rows.map((r) => r.name)))];
  const headers = ['invariant', ...soaks.map(soakLabel)];
  const rows = names.map((name) => [name, ...soaks.map((soak) => soak.rows.find((r) => r.name === name)?.verdict ?? '–')]);
  rows.push(['wall time', ...soaks.map((soak) => `${(soak.wallMs / 1000).toFixed(0)} s`)]);
  const widths = headers.map((h, col) => Math.max(h.length, ...rows.map((row) => row[col].length)));
  const line = (row) => row.map((cell, col) => cell.padEnd(widths[col])).join('  ').trimEnd();
  return ['\n## every invariant, by store and mode', '', line(headers), ...rows.map(line)].join('\n');
}
