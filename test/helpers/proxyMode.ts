/**
 * setupFiles of the integration project: its harnesses send every request for a contract operation
 * through the run's Prism proxy (prismProxy.ts), and the harness's own validator checks the same
 * response. ENRICH_TEST_PROXY=0 in the environment turns the proxy off (debugging only).
 */
process.env.ENRICH_TEST_PROXY ??= '1';
