/**
 * The background workers' pause: a sleep that `wake()` cuts short, so a stop (or new work) never
 * waits out a poll interval or a backoff.
 */
export class Nap {
  private wakeUp: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}
