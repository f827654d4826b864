; chat-tui's markdown_inline highlights: OpenTUI 0.5.8's query (nvim-treesitter 99ddf57, MDeiml/tree-sitter-markdown)
; with one rule: conceal only what is markup, never text the agent wrote.
;  - Shortcut, full and collapsed reference links (`[x]`, `a[0]`, `[a][b]`, `[a][]`) are shown as written:
;    Baton never resolves reference definitions, so they are text, not links (upstream hid their brackets
;    and the `[b]` of `[a][b]`).
;  - Images are shown like inline links, `alt (url)` (upstream kept only the alt text).
;  - A backslash escape shows the character it escapes (`\[` → `[`), as CommonMark renders it.
;  - `&nbsp;` shows as a space (upstream showed nothing).
; tests/tui/chat-tui-markdown.test.tsx pins the upstream file this was derived from.
(code_span) @markup.raw @nospell

(emphasis) @markup.italic

(strong_emphasis) @markup.strong

(strikethrough) @markup.strikethrough

(hard_line_break) @string.escape

; Conceal code span and text style markers
([
  (code_span_delimiter)
  (emphasis_delimiter)
] @conceal
  (#set! conceal ""))

; Inline links: `[label](url)` shows as `label (url)`
(inline_link
  ["[" "(" ")"] @markup.link)

(inline_link
  "]" @markup.link.bracket.close)

((inline_link
  "[" @conceal)
  (#set! conceal ""))

((inline_link
  "]" @conceal)
  (#set! conceal " "))

(inline_link
  (link_text) @markup.link.label)

; Images: `![alt](url)` shows as `alt (url)`; a reference image (`![alt]`, `![alt][x]`) is text
(image
  ["!" "[" "]" "(" ")"] @markup.link)

((image
  ["!" "["] @conceal
  "(")
  (#set! conceal ""))

((image
  "]" @conceal
  "(")
  (#set! conceal " "))

(image
  (image_description) @markup.link.label)

(inline_link
  (link_title) @markup.link.label)

(image
  (link_title) @markup.link.label)

[
  (link_destination)
  (uri_autolink)
] @markup.link.url @nospell

; Backslash escapes show the escaped character
((backslash_escape) @string.escape (#eq? @string.escape "\\!") (#set! conceal "!"))
((backslash_escape) @string.escape (#eq? @string.escape "\\\"") (#set! conceal "\""))
((backslash_escape) @string.escape (#eq? @string.escape "\\#") (#set! conceal "#"))
((backslash_escape) @string.escape (#eq? @string.escape "\\$") (#set! conceal "$"))
((backslash_escape) @string.escape (#eq? @string.escape "\\%") (#set! conceal "%"))
((backslash_escape) @string.escape (#eq? @string.escape "\\&") (#set! conceal "&"))
((backslash_escape) @string.escape (#eq? @string.escape "\\'") (#set! conceal "'"))
((backslash_escape) @string.escape (#eq? @string.escape "\\(") (#set! conceal "("))
((backslash_escape) @string.escape (#eq? @string.escape "\\)") (#set! conceal ")"))
((backslash_escape) @string.escape (#eq? @string.escape "\\*") (#set! conceal "*"))
((backslash_escape) @string.escape (#eq? @string.escape "\\+") (#set! conceal "+"))
((backslash_escape) @string.escape (#eq? @string.escape "\\,") (#set! conceal ","))
((backslash_escape) @string.escape (#eq? @string.escape "\\-") (#set! conceal "-"))
((backslash_escape) @string.escape (#eq? @string.escape "\\.") (#set! conceal "."))
((backslash_escape) @string.escape (#eq? @string.escape "\\/") (#set! conceal "/"))
((backslash_escape) @string.escape (#eq? @string.escape "\\:") (#set! conceal ":"))
((backslash_escape) @string.escape (#eq? @string.escape "\\;") (#set! conceal ";"))
((backslash_escape) @string.escape (#eq? @string.escape "\\<") (#set! conceal "<"))
((backslash_escape) @string.escape (#eq? @string.escape "\\=") (#set! conceal "="))
((backslash_escape) @string.escape (#eq? @string.escape "\\>") (#set! conceal ">"))
((backslash_escape) @string.escape (#eq? @string.escape "\\?") (#set! conceal "?"))
((backslash_escape) @string.escape (#eq? @string.escape "\\@") (#set! conceal "@"))
((backslash_escape) @string.escape (#eq? @string.escape "\\[") (#set! conceal "["))
((backslash_escape) @string.escape (#eq? @string.escape "\\\\") (#set! conceal "\\"))
((backslash_escape) @string.escape (#eq? @string.escape "\\]") (#set! conceal "]"))
((backslash_escape) @string.escape (#eq? @string.escape "\\^") (#set! conceal "^"))
((backslash_escape) @string.escape (#eq? @string.escape "\\_") (#set! conceal "_"))
((backslash_escape) @string.escape (#eq? @string.escape "\\`") (#set! conceal "`"))
((backslash_escape) @string.escape (#eq? @string.escape "\\{") (#set! conceal "{"))
((backslash_escape) @string.escape (#eq? @string.escape "\\|") (#set! conceal "|"))
((backslash_escape) @string.escape (#eq? @string.escape "\\}") (#set! conceal "}"))
((backslash_escape) @string.escape (#eq? @string.escape "\\~") (#set! conceal "~"))

; Replace common HTML entities.
((entity_reference) @character.special
  (#eq? @character.special "&nbsp;")
  (#set! conceal " "))

((entity_reference) @character.special
  (#eq? @character.special "&lt;")
  (#set! conceal "<"))

((entity_reference) @character.special
  (#eq? @character.special "&gt;")
  (#set! conceal ">"))

((entity_reference) @character.special
  (#eq? @character.special "&amp;")
  (#set! conceal "&"))

((entity_reference) @character.special
  (#eq? @character.special "&quot;")
  (#set! conceal "\""))

((entity_reference) @character.special
  (#any-of? @character.special "&ensp;" "&emsp;")
  (#set! conceal " "))
