/** What the Codex adapter declares (HAR-06), apart from the adapter so the definition can load it lazily. */
import { SUPPORTED, type Capabilities } from "../capabilities.ts";

export const CODEX_CAPABILITIES: Capabilities = Object.freeze({
  compact: SUPPORTED,
  textgen: SUPPORTED,
  syncContext: SUPPORTED,
  config: SUPPORTED,
  reconcile: SUPPORTED,
  approvalRouting: SUPPORTED,
  interactions: Object.freeze({ permission: SUPPORTED, question: SUPPORTED }),
});
