/**
 * The checkout's root directory (package.json, generated/, node_modules/), found the same way
 * whether this file runs from src/ (tsx, jest) or compiled from dist/src/ (`npm run build`), so
 * paths to generated/ do not depend on where the JavaScript was emitted.
 */
import fs from 'node:fs';
import path from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PROJECT_ROOT = findRoot(__dirname);
