/**
 * Where a command writes and what environment it reads. Types only, at the bottom of the CLI's
 * imports: common.ts, progress.ts and every command module use them, and they import nothing.
 */

/** Where a command writes and what environment it reads: the process's own, or a test's. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
}

export interface OutputStream {
  write(chunk: string): unknown;
  /** A terminal gets a live progress bar; anything else gets plain lines. */
  isTTY?: boolean;
}
