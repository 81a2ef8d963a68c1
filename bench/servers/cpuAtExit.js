'use strict';
// Preloaded (`node --require`) by bench:startup into every command it times: at exit, appends this
// process's CPU time (user + system, microseconds, since the process started) to BENCH_CPU_FILE.
// CPU time does not grow with the machine's load the way wall time does, so it estimates what a
// command costs on a quiet machine. Plain JavaScript and node:fs only, loaded by bare node too.
const fs = require('node:fs');
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  fs.appendFileSync(process.env.BENCH_CPU_FILE, `${user + system}\n`);
});
