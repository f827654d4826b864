/**
 * The session settings Baton offers on every agent (HAR-07): `/model`, `/effort`, `/mode`. One closed
 * vocabulary for the harness contract, the adapters, the Controller and the TUI; an agent's other options
 * (fast mode, collaboration modes, …) are kept in its snapshot but are not a `ConfigId`.
 */
export const CONFIG_IDS = ["model", "effort", "mode"] as const;

export type ConfigId = (typeof CONFIG_IDS)[number];

export function isConfigId(value: string): value is ConfigId {
  return (CONFIG_IDS as readonly string[]).includes(value);
}
