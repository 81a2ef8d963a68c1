'use strict';
/**
 * The order jest starts test files in (jest.config.js `testSequencer`): the longest first, so the
 * run does not end with one of the two workers idle while the other works through a long file that
 * started last.
 *
 * Jest's own sequencer orders by the durations of the previous run in its cache, and by file size
 * when it has none, as on a CI machine's first run: there `cursorPaging` (one of the longest files,
 * not one of the largest) could start last. Here the durations come from test/durations.json (one
 * measured run, refreshed with `node scripts/test-durations.js <jest --json output>`); a file not
 * in it (a new one) takes the duration jest's cache has for it, else one as long as the table's
 * median, so a new file neither jumps the queue nor waits for the end. Files that failed last time
 * still go first, as with jest's sequencer (quick feedback).
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const measured = require('./durations.json');

const root = path.resolve(__dirname, '..');
const seconds = Object.values(measured.seconds).sort((a, b) => a - b);
const median = seconds.length ? seconds[Math.floor(seconds.length / 2)] : 0;

class LongestFirst extends Sequencer {
  sort(tests) {
    const estimate = (test) => {
      const known = measured.seconds[path.relative(root, test.path).split(path.sep).join('/')];
      if (known !== undefined) return known * 1000;
      return this.time(test) ?? median * 1000;
    };
    const keyed = tests.map((test) => {
      // What jest's sequencer records (jest runs a few fast files in band on its cached timings).
      test.duration = this.time(test);
      return { test, failed: this.hasFailed(test), ms: estimate(test) };
    });
    keyed.sort((a, b) => Number(b.failed) - Number(a.failed) || b.ms - a.ms || (a.test.path < b.test.path ? -1 : 1));
    return keyed.map((k) => k.test);
  }
}

module.exports = LongestFirst;
