// Type declarations for the two matching libraries that ship none.
declare module 'parse-full-name' {
  export interface ParsedName {
    title: string;
    first: string;
    middle: string;
    last: string;
    nick: string;
    suffix: string;
    error: string[];
  }
  export function parseFullName(name: string, partToReturn?: 'all', fixCase?: 0 | 1 | -1, stopOnError?: 0 | 1, useLongLists?: 0 | 1): ParsedName;
}
declare module 'talisman/metrics/jaro-winkler' {
  /** Jaro-Winkler similarity, 0 (nothing alike) to 1 (equal). */
  function jaroWinkler(a: string, b: string): number;
  export = jaroWinkler;
}
