/**
 * undici (the HTTP client of webhook deliveries and of the live source), loaded at its first use:
 * it is ~110 modules, which every process that creates an app, and every test file, paid at start
 * whether or not it ever delivered a webhook or called the live source. `require`, as in
 * cli/lazy.ts: loaded synchronously in CommonJS the same way under node, tsx and jest.
 */
export const loadUndici = (): typeof import('undici') => require('undici') as typeof import('undici');
