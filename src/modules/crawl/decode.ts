import { createRequire } from "node:module";

/**
 * Bytes to text the way a browser does it: BOM, then the Content-Type charset,
 * then (HTML) the <meta> prescan of the first 1024 bytes, then the default.
 */

type Sniffer = (
  bytes: Uint8Array,
  options?: { xml?: boolean; transportLayerEncodingLabel?: string; defaultEncoding?: string },
) => string;

// html-encoding-sniffer is CommonJS and ships no types; this is the whole surface we use.
const sniffEncoding = createRequire(import.meta.url)("html-encoding-sniffer") as Sniffer;

export type PageKind = "html" | "xhtml";

export function decodeBody(
  bytes: Buffer,
  contentTypeHeader: string | undefined,
  kind: PageKind,
): { text: string; encoding: string } {
  const xml = kind === "xhtml";
  const sniffed = sniffEncoding(bytes, {
    xml,
    transportLayerEncodingLabel: charsetOf(contentTypeHeader),
    // The sniffer does not read <?xml encoding="…"?> yet; as the fallback it ranks just where XML puts it.
    defaultEncoding: xml ? (xmlDeclaredEncoding(bytes) ?? "UTF-8") : "windows-1252",
  });
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(sniffed);
  } catch {
    // A name the WHATWG list knows but ICU does not ("replacement", "x-user-defined"): read it as UTF-8.
    decoder = new TextDecoder("utf-8");
  }
  // TextDecoder drops a BOM matching its encoding; the sniffer already let a BOM win.
  const text = decoder.decode(bytes);
  return { text: decoder.encoding === "windows-1252" ? fixWindows1252(text) : text, encoding: decoder.encoding };
}

/**
 * Node 20's TextDecoder reads windows-1252 as Latin-1 (nodejs/node#56542): bytes
 * 0x80–0x9F come out as C1 controls instead of € ‘ ’ “ ” – — …, the very
 * characters legacy pages use most. Mapping them afterwards is a no-op once Node
 * decodes them right. The five bytes windows-1252 leaves undefined stay as they are.
 */
const WINDOWS_1252_C1 =
  "\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f" +
  "\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178";
const C1 = /[\x80-\x9f]/g;

function fixWindows1252(text: string): string {
  return text.replace(C1, (c) => WINDOWS_1252_C1.charAt(c.charCodeAt(0) - 0x80));
}

/** The page kinds we extract; anything else (PDF, images, JSON) is not a page. */
export function classifyContentType(header: string | undefined): PageKind | undefined {
  const essence = header?.split(";", 1)[0]?.trim().toLowerCase();
  if (essence === "text/html") return "html";
  if (essence === "application/xhtml+xml") return "xhtml";
  return undefined;
}

/**
 * Whether a body served without a Content-Type starts like an HTML document:
 * `<!doctype html` or `<html`, after an optional BOM, whitespace and comments.
 */
export function sniffHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024))
    .toString("latin1")
    .replace(/^(?:\xef\xbb\xbf)?(?:\s|<!--[\s\S]*?-->)*/, "")
    .toLowerCase();
  return /^<(?:!doctype\s+html|html)[\s>]/.test(head);
}

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]*))/i.exec(contentType ?? "");
  const label = (match?.[1] ?? match?.[2] ?? "").trim();
  return label === "" ? undefined : label;
}

function xmlDeclaredEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 200)).toString("latin1");
  const label = /^<\?xml\s[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1];
  if (label === undefined) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}
