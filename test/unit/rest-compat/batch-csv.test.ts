import { describe, expect, it } from "vitest";
import { csvCell, csvText, urlsFromCsv } from "../../../rest-compat/csv.js";
import { readUrlList } from "../../../src/cli/batch-command.js";

describe("a text/csv list of addresses", () => {
  it("takes the first column of each line, CRLF or LF, skipping blank lines and a url header", () => {
    expect(urlsFromCsv("url\r\nhttps://a.test/,Acme\r\n\r\nhttps://b.test/\n  \nhttps://c.test/\r\n")).toEqual([
      "https://a.test/",
      "https://b.test/",
      "https://c.test/",
    ]);
  });

  it("reads a quoted first cell whole, commas and doubled quotes included", () => {
    expect(urlsFromCsv('"https://a.test/?q=1,2",x\n"say ""hi"""\n')).toEqual(["https://a.test/?q=1,2", 'say "hi"']);
  });

  it("keeps a url line that is not the first as an address, and refuses an unclosed quote naming the line", () => {
    expect(urlsFromCsv("https://a.test/\nurl\n")).toEqual(["https://a.test/", "url"]);
    expect(() => urlsFromCsv('https://a.test/\n"https://b.test/\n')).toThrow(/line 2/);
  });

  it("drops a byte-order mark", () => {
    expect(urlsFromCsv("\uFEFFURL\nhttps://a.test/")).toEqual(["https://a.test/"]);
  });
});

describe("a batch as CSV", () => {
  it("defuses cells a spreadsheet would run as formulas, and quotes commas, quotes and line breaks", () => {
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+cmd")).toBe("'+cmd");
    expect(csvCell("-2")).toBe("'-2");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell("line\nbreak")).toBe('"line\nbreak"');
    expect(csvCell(42)).toBe("42");
    expect(csvCell(null)).toBe("");
  });

  it("writes a header and rows with CRLF line ends", () => {
    expect(csvText(["url", "total_score"], [["https://a.test/", 71]])).toBe(
      "url,total_score\r\nhttps://a.test/,71\r\n",
    );
  });
});

describe("pms batch's list file", () => {
  it("is one address per line, blank lines and a url header skipped", () => {
    expect(readUrlList("url\r\n https://a.test/ \n\nhttps://b.test/\n")).toEqual([
      "https://a.test/",
      "https://b.test/",
    ]);
  });
});
