/** CLI-10: how to come back to a session, printed when the TUI or the repl ends. */
export function exitHints(sessionId: string): string {
  return `Resume this session with: baton resume ${sessionId}\nFork this session with: baton fork ${sessionId}\n`;
}
