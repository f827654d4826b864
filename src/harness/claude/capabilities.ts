/** What the Claude Code adapter declares (HAR-06): compact, config, textgen; permission and question cards. */
import { SUPPORTED, type Capabilities } from "../capabilities.ts";

export const CLAUDE_CAPABILITIES: Capabilities = {
  compact: SUPPORTED,
  config: SUPPORTED,
  textgen: SUPPORTED,
  interactions: { permission: SUPPORTED, question: SUPPORTED },
};
