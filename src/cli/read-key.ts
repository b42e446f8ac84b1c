import { UsageError } from "./exit-codes.js";
import type { Output } from "./progress-view.js";

/** What `pms login` reads a key from: process.stdin, or a stream in a test. */
export interface Input extends AsyncIterable<string | Buffer> {
  readonly isTTY?: boolean | undefined;
  setRawMode?(mode: boolean): unknown;
  on?(event: "data", listener: (chunk: string | Buffer) => void): unknown;
  removeListener?(event: "data", listener: (chunk: string | Buffer) => void): unknown;
  resume?(): unknown;
  pause?(): unknown;
}

/** The key: typed at a prompt that does not echo it on a terminal, else the first line piped in. */
export async function readKey(input: Input, prompt: Output): Promise<string> {
  if (input.isTTY && input.setRawMode && input.on && input.removeListener) return hiddenPrompt(input, prompt);
  let text = "";
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes("\n")) break;
  }
  return (text.split(/\r?\n/)[0] ?? "").trim();
}

/** Reads keystrokes raw until Enter, echoing nothing (Backspace edits, Ctrl-C or Ctrl-D cancels). */
function hiddenPrompt(input: Input, prompt: Output): Promise<string> {
  prompt.write("API key (input hidden): ");
  return new Promise((resolve, reject) => {
    let key = "";
    const finish = (outcome: () => void) => {
      input.removeListener!("data", onData);
      input.setRawMode!(false);
      input.pause?.();
      prompt.write("\n");
      outcome();
    };
    const onData = (chunk: string | Buffer) => {
      for (const char of chunk.toString()) {
        if (char === "\r" || char === "\n") return finish(() => resolve(key.trim()));
        if (char === "\u0003" || char === "\u0004") return finish(() => reject(new UsageError("login cancelled")));
        if (char === "\u007f" || char === "\b") key = key.slice(0, -1);
        else if (char >= " ") key += char;
      }
    };
    input.setRawMode!(true);
    input.on!("data", onData);
    input.resume?.();
  });
}
