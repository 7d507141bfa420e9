// The soak's printed report: the invariant table (PASS/FAIL with figures), then what happened.

/** Text of one soak's report. */
export function renderSoak(soak) {
  const width = Math.max(...soak.rows.map((r) => r.name.length));
  const lines = [`\n## chaos soak — ${soak.mode} mode`, ''];
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
