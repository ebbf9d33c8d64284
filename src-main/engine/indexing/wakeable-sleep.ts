// The pause of a work loop between batches (jobs/runner.ts, shared/shared-watcher.ts): until its
// next due time or until new work arrives, whichever comes first. A wake while the loop is not
// sleeping is dropped on purpose: the loop looks for work again before it next sleeps.
export class WakeableSleep {
  private wakeUp: (() => void) | null = null;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** Ends the sleep under way now, if there is one. */
  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }
}
