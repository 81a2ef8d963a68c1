#!/usr/bin/env node
// The `enrich` command. The service is TypeScript run through tsx's require hook, so a fresh clone
// needs no build step before `npx enrich ...` works.
require('tsx/cjs');
require('../src/cli/main.ts').runCli(process.argv);
