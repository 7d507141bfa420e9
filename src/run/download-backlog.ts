/**
 * How many finished jobs may wait for a download before submitting waits for them. Why a bound:
 * a job leaves its place in the start queue (start-in-turns.ts) once it holds a submission slot,
 * and its slot once the service has finished it; a client slower to download than the service
 * is to render (a slow disk, a slow CDN, a busy machine) would go on submitting while finished
 * jobs piled up in memory, each with its answer and its suspended calls — 16,000 of them and
 * 790 MB two minutes into 50,000 AI Shorts on a sandbox at speed 2000. Submitting more than can
 * be fetched buys nothing: it only moves the wait from the service into this process.
 */
export class DownloadBacklog {
  private waiting = 0;
  private readonly blocked: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** A finished job joins the download queue; the returned function says its download started (once). */
  join(): () => void {
    this.waiting++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.waiting--;
      while (this.waiting < this.limit && this.blocked.length > 0) this.blocked.shift()!();
    };
  }

  /** Resolves at once while the backlog is under its limit, else once it is again. */
  room(): Promise<void> | undefined {
    if (this.waiting < this.limit) return undefined;
    return new Promise<void>((resolve) => this.blocked.push(resolve));
  }

  get size(): number {
    return this.waiting;
  }
}
