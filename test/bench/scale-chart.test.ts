import { describe, expect, test } from 'vitest';
import { axisSteps, jobsLabel, niceCeiling, seriesChartSvg } from '../../bench/lib/scale-chart.js';

const points = [
  { jobs: 1_000, cpuPerJobMs: 8.4, peakMb: 170, stateKbPerJob: 3.5 },
  { jobs: 10_000, cpuPerJobMs: 7.9, peakMb: 260, stateKbPerJob: 3.4 },
  { jobs: 50_000, cpuPerJobMs: 7.7, peakMb: 300, stateKbPerJob: 3.4 },
];
const PANELS = [
  { key: 'cpuPerJobMs', title: 'client CPU per job', unit: 'ms', digits: 2, target: 2 },
  { key: 'peakMb', title: 'peak memory (RSS)', unit: 'MB', digits: 0, target: 200 },
  { key: 'stateKbPerJob', title: 'state database per job', unit: 'kB', digits: 2 },
] as const;

describe('the chart of one series', () => {
  const svg = seriesChartSvg([{ name: 'reelpipe', points }], PANELS, 'measured on <2 cores> & node 20');

  test('draws each point once in every panel, labelled with its value and its size', () => {
    expect(svg.match(/<circle /g)).toHaveLength(points.length * PANELS.length);
    for (const label of ['8.40', '7.70', '170', '300', '3.50', '3.40', '1k', '10k', '50k']) expect(svg).toContain(`>${label}</text>`);
  });

  test('has a dashed target line where a panel sets one (CPU, memory) and none for the database', () => {
    expect(svg.match(/class="target"/g)).toHaveLength(2);
    expect(svg).toContain('target 2 ms');
    expect(svg).toContain('target 200 MB');
  });

  test('is one well-formed SVG document with its caption escaped, and no legend', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('measured on &lt;2 cores&gt; &amp; node 20');
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(svg).not.toContain('class="legend"');
  });

  test('a single size is drawn in the middle of each panel, without NaN coordinates', () => {
    expect(seriesChartSvg([{ name: 'one', points: points.slice(0, 1) }], PANELS, 'one')).not.toMatch(/NaN|Infinity/);
  });
});

describe('the chart of several clients', () => {
  const other = points.map((p) => ({ ...p, cpuPerJobMs: p.cpuPerJobMs / 2, peakMb: p.peakMb / 2 }));
  const panels = PANELS.slice(0, 2);
  const svg = seriesChartSvg([{ name: 'reelpipe', points }, { name: 'obvious client', points: other }], panels, 'two clients');

  test('draws a line and a point per size for each client, in its own colour, and names them in a legend', () => {
    expect(svg.match(/<polyline /g)).toHaveLength(2 * panels.length);
    expect(svg.match(/<circle /g)).toHaveLength(2 * points.length * panels.length);
    expect(svg.match(/class="legend"/g)).toHaveLength(2);
    expect(svg).toContain('■ obvious client');
    expect(new Set(svg.match(/stroke="#[0-9a-f]{6}" stroke-width="2"/g)).size).toBe(2);
  });

  test('labels each size once under a panel, however many clients share it', () => {
    expect(svg.match(/>10k<\/text>/g)).toHaveLength(panels.length);
  });

  test('leaves out a client\'s missing figure (a run that did not end) rather than drawing NaN', () => {
    const broken = seriesChartSvg([{ name: 'a', points }, { name: 'b', points: [{ ...points[0]!, cpuPerJobMs: Number.NaN }] }], panels, 'gap');
    expect(broken).not.toMatch(/NaN|Infinity/);
  });
});

describe('axes', () => {
  test.each([[0.9, 1], [1.7, 2], [3, 5], [7.2, 10], [230, 500], [0, 1]])('the axis holding %d tops at %d', (value, top) => {
    expect(niceCeiling(value)).toBe(top);
  });

  test.each([[1, 5], [2, 4], [5, 5], [10, 5], [200, 4], [500, 5]])('an axis topped at %d has %d gridline steps', (top, steps) => {
    expect(axisSteps(top)).toBe(steps);
  });

  test.each([[1_000, '1k'], [50_000, '50k'], [500, '500'], [1_500, '1500']])('%d jobs are labelled %s', (jobs, label) => {
    expect(jobsLabel(jobs)).toBe(label);
  });
});
