import type { ChatRequest } from "./providers/types";

/**
 * The pre-tokenizer split of OpenAI's cl100k/o200k BPE: words with their leading space, runs of
 * up to 3 digits, punctuation runs, whitespace. Counting pieces, not characters, keeps prose,
 * JSON and code alike close to a real tokenizer's count.
 */
const PIECE = /'(?:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+/giu;
const LETTERS = /\p{L}+/u;
const ASCII_WORD = /^[A-Za-z]+$/;
const LATIN_WORD = /^\p{Script=Latin}+$/u;

/** What OpenAI's chat format adds: per message (role and separators), and once to prime the answer. */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REPLY = 3;

/**
 * About how many tokens a BPE tokenizer makes of `text`, without its vocabulary: an English word
 * of up to 8 letters is one token, a longer one one per 6 letters; other Latin words one per 5;
 * other scripts one per letter; digits one per group of 3; punctuation one per 3 characters.
 * Within ±15 % of o200k_base on prose, JSON and code (token-estimate.test.ts).
 */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const [piece] of text.matchAll(PIECE)) {
    const letters = LETTERS.exec(piece)?.[0];
    if (letters !== undefined) {
      if (ASCII_WORD.test(letters)) n += letters.length <= 8 ? 1 : Math.ceil(letters.length / 6);
      else n += LATIN_WORD.test(letters) ? Math.ceil(letters.length / 5) : letters.length;
    } else if (piece.trim() === "" || /^\p{N}/u.test(piece)) n += 1;
    else n += Math.ceil(piece.trim().length / 3);
  }
  return n;
}

/** The prompt tokens of a chat call as OpenAI counts them: its messages (system, tool definitions included) and the format's overhead. */
export function estimatePromptTokens(req: Pick<ChatRequest, "system" | "messages" | "tools">): number {
  let n = TOKENS_PER_REPLY;
  if (req.system !== undefined) n += TOKENS_PER_MESSAGE + estimateTokens(req.system);
  for (const m of req.messages) {
    n += TOKENS_PER_MESSAGE;
    if (m.role === "tool") for (const r of m.results) n += estimateTokens(r.content);
    else {
      n += estimateTokens(m.text);
      if (m.role === "assistant") for (const c of m.toolCalls) n += estimateTokens(c.name + c.arguments);
    }
  }
  return n + (req.tools?.length ? estimateTokens(JSON.stringify(req.tools)) : 0);
}
