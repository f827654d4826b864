/**
 * The packages with top-level await that Baton loads: OpenTUI's, which only the rendering commands load
 * (cli.ts RENDERING_COMMANDS). The prebuilt start is CommonJS (bytecode, docs/start.md), and a CommonJS
 * `require()` of such a package fails ("require() async module … is unsupported") until an `import()` has
 * evaluated it; so a rendering command imports these first (cli.ts loadCommand). scripts/build-start.ts refuses a
 * bundle that requires any other package that cannot be required.
 */
export const ASYNC_PACKAGES: readonly string[] = ["@opentui/core", "@opentui/react"];
