/**
 * What a file must stop before a shared fixture (harness, lake, webhook harness) closes: workers,
 * receivers, child processes still calling the app. Jest runs a file's afterAll hooks in the order
 * they are declared, so the fixture's (declared first) would close before the file's own hook ran:
 * the fixture runs these first instead, in the order they were registered.
 */
export type BeforeClose = (fn: () => Promise<void>) => void;

export function closeQueue(): { beforeClose: BeforeClose; run(): Promise<void> } {
  const fns: (() => Promise<void>)[] = [];
  return {
    beforeClose: (fn) => void fns.push(fn),
    async run() {
      for (const fn of fns) await fn();
    },
  };
}
