/** The BatonError a synchronous call throws; any other outcome fails the test. Not a test file. */
import { BatonError } from "../../src/shared/errors.ts";

export function thrownBatonError(run: () => unknown): BatonError {
  try {
    run();
  } catch (error) {
    if (error instanceof BatonError) return error;
    throw error;
  }
  throw new Error("expected a BatonError");
}
