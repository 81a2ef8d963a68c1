#!/usr/bin/env node
'use strict';
/**
 * Runs a command (default: `npm test`) while other processes load the machine, to prove the suite
 * holds when the machine is busy (issue 24: `npm test` must pass, without a retry, at a load
 * average of 8). It starts LOAD_PROCS busy-loop processes (default 8: each keeps one run queue
 * slot full, so together they alone make a load average of about 8, whatever the core count),
 * waits LOAD_WARMUP_S seconds (default 60) for the 1-minute load average to climb, runs the
 * command, kills the loops, and prints the command's wall time and the load averages sampled
 * while it ran.
 *
 *   npm run test:load                       # npm test under 8 busy loops
 *   LOAD_PROCS=6 node scripts/test-under-load.js npx jest test/integration/realtime
 *
 * Plain Node (no package, no tsx), so it runs anywhere the project runs. The loops are this
 * script's children and end with it, also on Ctrl-C.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');

const procs = Number(process.env.LOAD_PROCS ?? 8);
const warmupS = Number(process.env.LOAD_WARMUP_S ?? 60);
const command = process.argv.slice(2);
if (!command.length) command.push('npm', 'test');

const loops = Array.from({ length: procs }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopLoops = () => {
  for (const loop of loops) if (loop.exitCode === null && loop.signalCode === null) loop.kill('SIGKILL');
};
process.on('exit', stopLoops);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopLoops();
    process.exit(130);
  });
}

const load1 = () => os.loadavg()[0];

/**
 * CPU seconds used by this process's finished children and their descendants (Linux: /proc), the
 * figure that does not grow with the machine's load the way wall time does; undefined elsewhere.
 */
function childrenCpuSeconds() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5) (cutime, cstime), counted from the state field (3): indexes 13, 14.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}
const fmt = (n) => n.toFixed(2);
const say = (line) => process.stderr.write(`test-under-load: ${line}\n`);

async function main() {
  say(`${procs} busy loops started; waiting ${warmupS} s for the load average to rise (now ${fmt(load1())})`);
  await new Promise((r) => setTimeout(r, warmupS * 1000));
  const samples = [];
  const sampler = setInterval(() => samples.push(load1()), 10_000);
  samples.push(load1());
  say(`running \`${command.join(' ')}\` at load average ${fmt(load1())}`);
  const started = Date.now();
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit', shell: process.platform === 'win32' });
  const code = await new Promise((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  clearInterval(sampler);
  samples.push(load1());
  // Read before the loops are reaped, so their CPU is not counted.
  const cpu = childrenCpuSeconds();
  stopLoops();
  const seconds = (Date.now() - started) / 1000;
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  say(
    `\`${command.join(' ')}\` exited ${code} after ${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s; ` +
      `1-minute load average while it ran: min ${fmt(sorted[0])}, median ${fmt(median)}, max ${fmt(sorted[sorted.length - 1])} ` +
      `(${samples.length} samples, ${os.cpus().length} cores, ${procs} busy loops)` +
      (cpu === undefined ? '' : `; CPU time of the command and its processes: ${cpu.toFixed(1)} s`),
  );
  process.exitCode = code;
}

main().catch((err) => {
  stopLoops();
  say(err.stack);
  process.exitCode = 1;
});
