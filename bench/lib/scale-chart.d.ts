export interface ChartPanel<P> { key: keyof P & string; title: string; unit: string; digits: number; target?: number }
export interface ChartSeries<P extends { jobs: number }> { name: string; points: readonly P[] }
export function jobsLabel(jobs: number): string;
export function niceCeiling(value: number): number;
export function axisSteps(top: number): number;
export function seriesChartSvg<P extends { jobs: number }>(series: readonly ChartSeries<P>[], panels: readonly ChartPanel<P>[], caption: string): string;
