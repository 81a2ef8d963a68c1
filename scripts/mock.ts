/**
 * `npm run mock`: Prism's mock of the bundled contract on loopback (MOCK_PORT, default 4010), at the
 * same addresses as the real server (http://127.0.0.1:4010/api/v1/...; see scripts/prismBundle.ts).
 * Every operation answers its named examples: pick one with `Prefer: code=404` or
 * `Prefer: example=<name>`; `Prefer: dynamic=true` generates data from the schemas instead.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { writePrismBundle } from './prismBundle';

const host = '127.0.0.1';
const port = Number(process.env.MOCK_PORT ?? 4010);
const bundle = writePrismBundle(`http://${host}:${port}`);
const prism = spawn(path.resolve(__dirname, '../node_modules/.bin/prism'), ['mock', '-h', host, '-p', String(port), bundle], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code) => process.exit(code ?? 0));
