export interface ChildFigures { wallMs: number; cpuMs: number; peakMb: number; exit: number | string; stderr: string }
export const measuredBy: string;
export function parseGnuTime(report: string): { cpuMs: number; peakMb: number; exit: number | string };
export function parseResourceUsage(usage: { userCPUTime: number; systemCPUTime: number; maxRSS: number }): { cpuMs: number; peakMb: number };
export function runMeasured(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; stdoutFile?: string }): Promise<ChildFigures>;
