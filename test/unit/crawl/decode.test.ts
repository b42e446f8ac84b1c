import { describe, expect, it } from "vitest";
import { classifyContentType, decodeBody, sniffHtml } from "../../../src/modules/crawl/decode.js";

const latin1 = (text: string) => Buffer.from(text, "latin1");
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe("decodeBody", () => {
  it("reads a windows-1252 page whose charset is declared only in <meta charset>", () => {
    const bytes = latin1(
      '<!doctype html><html><head><meta charset="windows-1252"><title>Caf\xe9</title></head><body>r\xe9sum\xe9 \x80</body></html>',
    );
    const { text, encoding } = decodeBody(bytes, "text/html", "html");
    expect(text).toContain("<title>Café</title>");
    expect(text).toContain("résumé €");
    expect(encoding).toBe("windows-1252");
  });

  it("decodes windows-1252's 0x80–0x9F as browsers do (€, curly quotes, dashes), not as Latin-1 controls", () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i));
    // Node 20's own TextDecoder gets these wrong (nodejs/node#56542); the five undefined bytes pass through.
    expect(decodeBody(bytes, "text/html; charset=windows-1252", "html").text).toBe(
      "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ",
    );
    expect(decodeBody(latin1("\x93quoted\x94 \x96 it\x92s"), "text/html; charset=iso-8859-1", "html").text).toBe(
      "“quoted” – it’s",
    );
  });

  it("reads the charset from a <meta http-equiv=Content-Type> with unquoted attributes", () => {
    const bytes = latin1(
      "<html><head><meta http-equiv=Content-Type content='text/html; charset=ISO-8859-2'></head><body>\xb1\xe6</body></html>",
    );
    expect(decodeBody(bytes, undefined, "html").text).toContain("ąć");
  });

  it("decodes a Shift_JIS page declared in the Content-Type header", () => {
    const bytes = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]); // 日本語
    expect(decodeBody(bytes, "text/html; charset=Shift_JIS", "html")).toEqual({
      text: "日本語",
      encoding: "shift_jis",
    });
  });

  it("decodes EUC-KR declared in a quoted header charset", () => {
    const bytes = Buffer.from([0xc7, 0xd1, 0xb1, 0xdb]); // 한글
    expect(decodeBody(bytes, 'text/html; charset="euc-kr"', "html").text).toBe("한글");
  });

  it("lets a UTF-8 BOM override a wrong header, and drops the BOM", () => {
    const bytes = Buffer.concat([UTF8_BOM, Buffer.from("<p>café 日本</p>")]);
    expect(decodeBody(bytes, "text/html; charset=iso-8859-1", "html")).toEqual({
      text: "<p>café 日本</p>",
      encoding: "utf-8",
    });
  });

  it("lets the header win over a contradicting <meta charset>", () => {
    const bytes = Buffer.from('<meta charset="windows-1252"><p>café</p>');
    expect(decodeBody(bytes, "text/html; charset=utf-8", "html").text).toContain("café");
  });

  it("falls through an unknown header label to the <meta> prescan", () => {
    const bytes = latin1('<meta charset="iso-8859-15"><p>\xa4</p>');
    expect(decodeBody(bytes, "text/html; charset=no-such-charset", "html").text).toContain("€");
  });

  it("ignores a <meta charset> beyond the first 1024 bytes, as browsers do", () => {
    const bytes = Buffer.concat([
      Buffer.from(`<!--${" ".repeat(1100)}--><meta charset="utf-8">`),
      Buffer.from("<p>café</p>"),
    ]);
    const { text, encoding } = decodeBody(bytes, "text/html", "html");
    expect(encoding).toBe("windows-1252");
    expect(text).toContain("cafÃ©");
  });

  it("defaults to windows-1252 for HTML and to UTF-8 for XHTML", () => {
    const bytes = Buffer.from("<p>café</p>");
    expect(decodeBody(bytes, undefined, "html").encoding).toBe("windows-1252");
    expect(decodeBody(bytes, "application/xhtml+xml", "xhtml")).toEqual({ text: "<p>café</p>", encoding: "utf-8" });
  });

  it("reads XHTML's <?xml encoding?> declaration but not an HTML <meta> prescan", () => {
    const declared = latin1("<?xml version='1.0' encoding='ISO-8859-2'?><html><p>\xb1</p></html>");
    expect(decodeBody(declared, "application/xhtml+xml", "xhtml").text).toContain("<p>ą</p>");
    const metaOnly = Buffer.from('<html><head><meta charset="windows-1252"/></head><p>café</p></html>');
    expect(decodeBody(metaOnly, "application/xhtml+xml", "xhtml").text).toContain("café");
  });

  it("falls back to UTF-8 for an encoding Node cannot decode", () => {
    // iso-2022-kr maps to the WHATWG "replacement" encoding, which TextDecoder refuses.
    expect(decodeBody(Buffer.from("<p>café</p>"), "text/html; charset=iso-2022-kr", "html")).toEqual({
      text: "<p>café</p>",
      encoding: "utf-8",
    });
  });
});

describe("classifyContentType", () => {
  it.each([
    ["text/html", "html"],
    ["Text/HTML; charset=UTF-8", "html"],
    ["application/xhtml+xml", "xhtml"],
    ["application/xhtml+xml;charset=utf-8", "xhtml"],
  ] as const)("classifies %s as %s", (header, kind) => {
    expect(classifyContentType(header)).toBe(kind);
  });

  it.each(["application/pdf", "image/png", "application/json", "text/plain", "application/xml", "", undefined])(
    "does not treat %s as a page",
    (header) => {
      expect(classifyContentType(header)).toBeUndefined();
    },
  );
});

describe("sniffHtml", () => {
  it("recognises a body that starts like an HTML document", () => {
    expect(sniffHtml(Buffer.from("<!DOCTYPE html><html><body>x"))).toBe(true);
    expect(sniffHtml(Buffer.from("\n  <HTML lang=en>"))).toBe(true);
    expect(sniffHtml(Buffer.concat([UTF8_BOM, Buffer.from("<!-- generated --> <!doctype html>")]))).toBe(true);
  });

  it("rejects anything else", () => {
    expect(sniffHtml(Buffer.from("%PDF-1.7"))).toBe(false);
    expect(sniffHtml(Buffer.from('{"html": "<html>"}'))).toBe(false);
    expect(sniffHtml(Buffer.from("<htmlx>"))).toBe(false);
    expect(sniffHtml(Buffer.from(""))).toBe(false);
  });
});
