/** The part of madge's API (no bundled types) that test/contract/importGraph.test.ts uses. */
declare module 'madge' {
  interface MadgeResult {
    /** file -> the files it imports, relative to the base directory. */
    obj(): Record<string, string[]>;
    circular(): string[][];
    warnings(): { skipped: string[] };
  }
  function madge(path: string, config?: { fileExtensions?: string[]; tsConfig?: string; baseDir?: string }): Promise<MadgeResult>;
  export = madge;
}
