/** The markdown answer bench/stall.ts and bench/markdown-stall.tsx stream (issue #18). */

/**
 * The pieces of a markdown answer as an agent streams it: prose, a list, a code block, repeated (`code: false`:
 * prose and lists only, an answer that OpenTUI's markdown draws as one block).
 */
export function markdownPieces(count: number, options: { readonly code?: boolean } = {}): string[] {
  const pieces: string[] = [];
  let word = 0;
  const prose = (words: number): void => {
    for (let i = 0; i < words; i++) pieces.push(`${i === 0 ? "" : " "}${word % 9 === 4 ? `**word${word}**` : word % 13 === 7 ? `\`word${word}\`` : `word${word}`}`), word++;
    pieces.push(".\n\n");
  };
  for (let block = 0; pieces.length < count; block++) {
    prose(30 + ((block * 17) % 41));
    if (block % 3 === 1) {
      for (let item = 0; item < 4; item++) {
        pieces.push("- ");
        for (let i = 0; i < 8; i++) pieces.push(`${i === 0 ? "" : " "}item${word++}`);
        pieces.push("\n");
      }
      pieces.push("\n");
    }
    if (block % 3 === 2 && options.code !== false) {
      pieces.push("```ts\n");
      for (let line = 0; line < 6; line++) pieces.push(`const value${word} = compute(${word++}, "text");\n`);
      pieces.push("```\n\n");
    }
  }
  return pieces.slice(0, count);
}
