/**
 * Preloaded by `bun test` (bunfig.toml): the test process renders the TUI through React's `act`, which only
 * the development build has, so in-process CLI runs (tests/support/cli-runner.ts) must not switch this
 * process to the production build (src/app/react-build.ts). Processes the tests spawn choose for themselves.
 */
process.env["BATON_REACT_DEVELOPMENT"] = "1";
