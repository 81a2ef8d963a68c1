/**
 * Which build is running: the package's version and the commit it was built from. One place, read
 * by `enrich --version`, the health answers, the `enrich_build_info` metric and the startup line.
 *
 * The commit comes from, in order: the `ENRICH_COMMIT` environment variable (an image built without
 * `.git` sets it), else `dist/commit.txt`, which `npm run build` (scripts/build.js) writes from
 * `git rev-parse HEAD` when git and a repository are there; else it is unknown (`null`), e.g. when
 * running the sources through tsx without a build. No git is ever run while the service runs.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface BuildInfo {
  version: string;
  /** The full commit hash, or null when neither ENRICH_COMMIT nor a build's commit.txt says it. */
  commit: string | null;
}

const COMMIT_PATTERN = /^[0-9a-f]{7,64}$/;

/** The directory of the package.json above this file (src/observability/ or dist/src/observability/). */
export function packageRoot(from: string = __dirname): string | undefined {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return undefined;
}

export function packageVersion(root: string | undefined = packageRoot()): string {
  if (!root) return 'unknown';
  return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The commit: ENRICH_COMMIT, else the build's dist/commit.txt, else null; anything not a hex hash is ignored. */
export function buildCommit(env: NodeJS.ProcessEnv = process.env, root: string | undefined = packageRoot()): string | null {
  const fromEnv = env.ENRICH_COMMIT?.trim().toLowerCase();
  if (fromEnv && COMMIT_PATTERN.test(fromEnv)) return fromEnv;
  if (!root) return null;
  try {
    const built = fs.readFileSync(path.join(root, 'dist', 'commit.txt'), 'utf8').trim().toLowerCase();
    return COMMIT_PATTERN.test(built) ? built : null;
  } catch {
    return null;
  }
}

let cached: BuildInfo | undefined;

/** Read once per process (a file and an environment variable: the answer cannot change while it runs). */
export function buildInfo(): BuildInfo {
  if (!cached) {
    const root = packageRoot();
    cached = { version: packageVersion(root), commit: buildCommit(process.env, root) };
  }
  return cached;
}
