export interface ScalePoint { jobs: number; cpuPerJobMs: number; peakMb: number; stateKbPerJob: number }
export const SCALE_PANELS: { key: keyof ScalePoint; title: string; unit: string; digits: number; target?: number }[];
export function jobsLabel(jobs: number): string;
export function niceCeiling(value: number): number;
export function axisSteps(top: number): number;
export function scaleChartSvg(points: readonly ScalePoint[], caption: string): string;
export interface ChartSeries<P extends { jobs: number }> { name: string; points: readonly P[] }
export function seriesChartSvg<P extends { jobs: number }>(series: readonly ChartSeries<P>[], panels: readonly { key: keyof P & string; title: string; unit: string; digits: number; target?: number }[], caption: string): string;
