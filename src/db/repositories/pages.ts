/** The page a list query is asked for, and what it answers: plain values, shared by every list. */
export interface Page {
  limit: number;
  offset: number;
}

export interface ListResult<T> {
  rows: T[];
  total: number;
}
